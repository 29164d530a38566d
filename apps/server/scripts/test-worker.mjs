// One worker of the test runner (scripts/test.mjs): a long-lived process that asks the runner
// for a test file, runs it, and asks for the next until none is left. Loading the application and
// its dependencies costs about 2 s of CPU per process; a worker pays it once for many files.
//
// Each file runs inside a suite named by its path, created only when the previous file's suite
// has finished: the file's top-level tests and hooks (`afterEach`, `after`) belong to that suite,
// so they neither run for another file's tests nor overlap them.
import { resolve } from "node:path";
import { after, describe } from "node:test";
import { pathToFileURL } from "node:url";

const root = process.cwd();

function nextFile() {
  return new Promise((answer) => {
    process.once("message", (message) => answer(message.file ?? null));
    process.send({ type: "next" });
  });
}

function runFile(file) {
  return new Promise((finished) => {
    describe(file, async () => {
      after(finished);
      await import(pathToFileURL(resolve(root, file)).href);
    });
  });
}

for (let file = await nextFile(); file; file = await nextFile()) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await runFile(file);
  const used = process.cpuUsage(cpu);
  process.send({
    type: "done",
    file,
    ms: performance.now() - started,
    cpuMs: (used.user + used.system) / 1000,
  });
}
process.disconnect();
