/**
 * `new AppError(code, message, metadata)` is checked by the compiler against the code's metadata
 * schema (lib/error-metadata.ts): a program using AppError as the service does is compiled, and
 * every line marked `@ts-expect-error` must be refused while every other line compiles.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ERRORS_MODULE = fileURLToPath(new URL("../../src/lib/errors.ts", import.meta.url));

const CHECKS = `
import { AppError, fieldError, isAppError } from ${JSON.stringify(ERRORS_MODULE)};

export const balance = new AppError("INSUFFICIENT_BALANCE", "m", { available: "1.00", amount: "2.00" });
// @ts-expect-error INSUFFICIENT_BALANCE needs both amounts.
export const partial = new AppError("INSUFFICIENT_BALANCE", "m", { available: "1.00" });
// @ts-expect-error The amounts are decimal strings.
export const numeric = new AppError("INSUFFICIENT_BALANCE", "m", { available: 1, amount: 2 });
// @ts-expect-error A key the schema does not describe.
export const extra = new AppError("INSUFFICIENT_BALANCE", "m", { available: "1", amount: "2", currency: "THB" });
// @ts-expect-error INSUFFICIENT_BALANCE always has metadata.
export const bare = new AppError("INSUFFICIENT_BALANCE", "m");

export const notFound = new AppError("RESOURCE_NOT_FOUND", "m");
// @ts-expect-error RESOURCE_NOT_FOUND has no metadata.
export const notFoundWith = new AppError("RESOURCE_NOT_FOUND", "m", {});

export const validation = new AppError("VALIDATION_ERROR", "m");
export const validationField = new AppError("VALIDATION_ERROR", "m", { field: "amount" });
export const guard = new AppError("STATE_CONFLICT", "m", {
  existingWithdrawId: "id",
  existingWithdrawStatus: "pending",
  reason: "active_payout",
});
// @ts-expect-error Not a withdraw status.
export const badStatus = new AppError("STATE_CONFLICT", "m", { existingWithdrawId: "id", existingWithdrawStatus: "done", reason: "active_payout" });
// @ts-expect-error SERVICE_UNAVAILABLE says how long to wait.
export const unavailable = new AppError("SERVICE_UNAVAILABLE", "m", { reason: "busy" });

export const field = fieldError("INVALID_AMOUNT", "amount", "m");
// @ts-expect-error STATE_CONFLICT is not a field error.
export const notField = fieldError("STATE_CONFLICT", "email", "m");

export function wait(error: unknown): number | undefined {
  if (!isAppError(error)) return undefined;
  if (error.code === "RATE_LIMIT_EXCEEDED") return error.metadata.retryAfter;
  // @ts-expect-error The metadata of an unnarrowed code is the union of every code's.
  return error.metadata.retryAfter;
}
`;

const directories: string[] = [];
after(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
});

/**
 * The compiler's messages for each source, by the order given: the sources are compiled as one
 * program, so the modules they import are checked once for all of them.
 */
function diagnostics(...sources: string[]): string[][] {
  const dir = mkdtempSync(join(tmpdir(), "satang-error-types-"));
  directories.push(dir);
  const files = sources.map((source, index) => {
    const file = join(dir, `checks-${index}.ts`);
    writeFileSync(file, source);
    return file;
  });
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    types: ["node"],
  });
  return files.map((file) =>
    ts
      .getPreEmitDiagnostics(program, program.getSourceFile(file))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")),
  );
}

// The checks as written, and the same with one refused line made valid: that line's
// `@ts-expect-error` must then be reported as unused, which shows the check can fail.
const MUTATED = CHECKS.replace('{ available: "1.00" }', '{ available: "1.00", amount: "2.00" }');
let compiled: string[][] | undefined;
const compiledChecks = () => {
  compiled ??= diagnostics(CHECKS, MUTATED);
  return compiled;
};

describe("AppError metadata types", () => {
  it("accepts each code's metadata and refuses any other", () => {
    assert.deepEqual(compiledChecks()[0], []);
  });

  it("fails when a refused line compiles (the check can fail)", () => {
    const errors = compiledChecks()[1] ?? [];
    assert.ok(
      errors.some((message) => /Unused '@ts-expect-error' directive/.test(message)),
      errors.join("\n"),
    );
  });
});
