/**
 * The oldest Node.js the service runs on (`engines.node` in package.json, the README's "Node.js
 * X or newer"). Imported first by the entry point, so an older Node stops at once with a
 * sentence saying so, not later with an error about some missing API.
 */
export const NODE_MINIMUM = "20.19.0";

/** Why `version` (as in `process.versions.node`) is too old, or undefined when it is not. */
export function nodeTooOld(version: string): string | undefined {
  const have = version.split(".").map(Number);
  const need = NODE_MINIMUM.split(".").map(Number);
  for (let i = 0; i < need.length; i += 1) {
    if ((have[i] ?? 0) > need[i]!) return undefined;
    if ((have[i] ?? 0) < need[i]!) {
      return `Satang needs Node.js ${NODE_MINIMUM} or newer; this is Node.js ${version} (README.md, Quick start)`;
    }
  }
  return undefined;
}

const tooOld = nodeTooOld(process.versions.node);
if (tooOld) {
  process.stderr.write(`satang: ${tooOld}\n`);
  process.exit(2);
}
