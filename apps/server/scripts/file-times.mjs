// A test reporter that adds up, per test file, the time its top-level tests and suites took,
// and writes the slowest files at the end of the run: where the suite's time goes on a busy
// machine, and which file to split next. Used by scripts/test.mjs beside the TAP reporter.
import { relative } from "node:path";

export default async function* fileTimes(source) {
  const perFile = new Map();
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { data } = event;
    if (data.nesting !== 0 || !data.file) continue;
    const file = relative(process.cwd(), data.file);
    const entry = perFile.get(file) ?? { ms: 0, failed: 0 };
    entry.ms += data.details?.duration_ms ?? 0;
    if (event.type === "test:fail") entry.failed += 1;
    perFile.set(file, entry);
  }
  const rows = [...perFile.entries()].sort((a, b) => b[1].ms - a[1].ms);
  const total = rows.reduce((sum, [, entry]) => sum + entry.ms, 0);
  yield `# time per test file (sum of top-level tests), ${rows.length} files, ${(total / 1000).toFixed(1)} s in all\n`;
  for (const [file, entry] of rows) {
    yield `# ${(entry.ms / 1000).toFixed(1).padStart(7)} s  ${file}${entry.failed ? `  (${entry.failed} failed)` : ""}\n`;
  }
}
