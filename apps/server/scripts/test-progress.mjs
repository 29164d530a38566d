// The test workers' reporter (scripts/test-worker.mjs): one line per test file as it ends, the
// name, place and error of every failed test in full, and at the end the worker's counts as JSON
// in the file SATANG_TEST_SUMMARY names, which scripts/test.mjs adds up.
import { writeFileSync } from "node:fs";
import { inspect } from "node:util";

const counts = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
const failures = [];
let files = 0;

// Written after every file, so that the runner has this worker's counts even when something a
// test left open keeps the process from ending by itself.
function writeSummary() {
  if (process.env.SATANG_TEST_SUMMARY) {
    writeFileSync(process.env.SATANG_TEST_SUMMARY, JSON.stringify({ counts, failures, files }));
  }
}

function describeFailure(data, path) {
  const error = data.details?.error;
  const cause = error?.cause ?? error;
  const where = data.file ? `${data.file}:${data.line}:${data.column}` : "";
  const text = cause instanceof Error ? (cause.stack ?? cause.message) : inspect(cause, { depth: 4 });
  return `not ok: ${path.join(" > ")}\n  at ${where}\n${String(text)
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n")}\n`;
}

export default async function* progress(source) {
  const stack = [];
  for await (const event of source) {
    if (event.type === "test:start") {
      stack[event.data.nesting] = event.data.name;
      continue;
    }
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { data } = event;
    const path = [...stack.slice(0, data.nesting), data.name];
    const isSuite = data.details?.type === "suite";
    if (process.env.SATANG_TEST_SLOW && !isSuite && data.nesting > 0) {
      const ms = data.details?.duration_ms ?? 0;
      if (ms >= Number(process.env.SATANG_TEST_SLOW))
        yield `# slow ${(ms / 1000).toFixed(1)} s ${path.join(" > ")}\n`;
    }
    if (data.nesting === 0) {
      const seconds = ((data.details?.duration_ms ?? 0) / 1000).toFixed(1);
      yield `${event.type === "test:pass" ? "ok" : "NOT OK"} ${data.name} (${seconds} s)\n`;
    }
    if (event.type === "test:fail") {
      const failureType = data.details?.error?.failureType;
      if (failureType !== "subtestsFailed") {
        failures.push(path.join(" > "));
        yield describeFailure(data, path);
      }
    }
    if (data.nesting === 0) {
      files += 1;
      writeSummary();
    }
    if (isSuite || data.nesting === 0) continue;
    counts.tests += 1;
    if (data.skip) counts.skipped += 1;
    else if (data.todo) counts.todo += 1;
    else if (event.type === "test:pass") counts.pass += 1;
    else if (data.details?.error?.failureType === "cancelledByParent") counts.cancelled += 1;
    else counts.fail += 1;
  }
  writeSummary();
}
