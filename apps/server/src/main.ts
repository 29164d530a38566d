/**
 * Entry point of the `satang` command (bin/satang.js, `npm start`). The commands live in
 * cli/program.ts; this file only connects them to the process.
 */
// First: an older Node.js stops here, before any other module runs.
import "./node-version.ts";
import { runCli } from "./cli/program.ts";

const outcome = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});

if ("exitCode" in outcome) {
  // Exit explicitly once the output is flushed: idle keep-alive sockets of the HTTP client
  // would otherwise hold a finished command open for seconds.
  const code = outcome.exitCode;
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}
