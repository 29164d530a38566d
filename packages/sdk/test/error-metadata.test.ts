/**
 * Error metadata types follow the OpenAPI document once it describes them per code: a document
 * whose error object is a union with one variant per code goes through the generator, and the
 * SDK's `MetadataFor` (which types every error class's `metadata`) is checked by the TypeScript
 * compiler against the generated types.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { renderFiles, TYPES_FILE } from "../scripts/generate.ts";

const ERRORS_MODULE = fileURLToPath(new URL("../src/errors.ts", import.meta.url));
const SDK_MODULE = fileURLToPath(new URL("../src/index.ts", import.meta.url));
const GENERATED_MODULE = fileURLToPath(new URL("../src/generated/openapi.ts", import.meta.url));

/** An error envelope documented per code: INSUFFICIENT_BALANCE with metadata, RESOURCE_NOT_FOUND without. */
const PER_CODE_DOCUMENT = {
  openapi: "3.1.0",
  info: { title: "per-code errors", version: "1" },
  paths: {},
  components: {
    schemas: {
      Error: {
        type: "object",
        required: ["success", "error"],
        properties: {
          success: { const: false },
          error: {
            oneOf: [
              {
                type: "object",
                required: ["code", "message", "metadata"],
                properties: {
                  code: { const: "INSUFFICIENT_BALANCE" },
                  message: { type: "string" },
                  metadata: {
                    type: "object",
                    required: ["available", "amount", "currency"],
                    properties: {
                      available: { type: "string" },
                      amount: { type: "string" },
                      currency: { type: "string" },
                    },
                  },
                },
              },
              {
                type: "object",
                required: ["code", "message"],
                properties: { code: { const: "RESOURCE_NOT_FOUND" }, message: { type: "string" } },
              },
            ],
          },
        },
      },
    },
  },
};

/** Uses the generated types as a program would; each line compiles only if MetadataFor follows the document. */
const CHECKS = `
import type { components } from "./generated.ts";
import type { MetadataFor } from ${JSON.stringify(ERRORS_MODULE)};
type Documented = components["schemas"]["Error"]["error"];
type Fallback = { fallback: true };

export const documented: MetadataFor<Documented, "INSUFFICIENT_BALANCE", Fallback> = {
  available: "100.00",
  amount: "200.00",
  currency: "THB",
};
// @ts-expect-error The documented metadata replaces the fallback for a documented code.
export const replaced: MetadataFor<Documented, "INSUFFICIENT_BALANCE", Fallback> = { fallback: true };
export const withoutMetadata: MetadataFor<Documented, "RESOURCE_NOT_FOUND", Fallback> = undefined;
export const undocumented: MetadataFor<Documented, "RATE_LIMIT_EXCEEDED", Fallback> = { fallback: true };
`;

const directories: string[] = [];
after(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true });
});

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowImportingTsExtensions: true,
  types: ["node"],
};

/**
 * A compiler host that parses each file outside the checks' own directories once for all the
 * checks (TypeScript's lib files, Node's types, the SDK's sources): only the checks differ.
 */
const shared = new Map<string, ts.SourceFile | undefined>();
const baseHost = ts.createCompilerHost(OPTIONS);
const host: ts.CompilerHost = {
  ...baseHost,
  getSourceFile(fileName, languageVersion, onError, shouldCreate) {
    if (directories.some((dir) => fileName.startsWith(dir)))
      return baseHost.getSourceFile(fileName, languageVersion, onError, shouldCreate);
    if (!shared.has(fileName))
      shared.set(fileName, baseHost.getSourceFile(fileName, languageVersion, onError, shouldCreate));
    return shared.get(fileName);
  },
};

function diagnostics(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), "satang-sdk-types-"));
  directories.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const program = ts.createProgram([join(dir, "checks.ts")], OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

/**
 * The SDK's own error classes against the committed document's types: each line compiles only if
 * the class's metadata is exactly the metadata of its code's variant in the document.
 */
const SDK_CHECKS = `
import type { components } from ${JSON.stringify(GENERATED_MODULE)};
import type {
  InsufficientBalanceError,
  InvalidCredentialsError,
  InvalidInputError,
  RateLimitError,
  ResourceNotFoundError,
  StateConflictError,
  ValidationError,
} from ${JSON.stringify(SDK_MODULE)};
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Variant<C extends string> = Extract<components["schemas"]["Error"]["error"], { code: C }>;

export const balance: Equal<InsufficientBalanceError["metadata"], Variant<"INSUFFICIENT_BALANCE">["metadata"]> = true;
export const available: Equal<InsufficientBalanceError["metadata"]["available"], string> = true;
// @ts-expect-error The available wallet is a decimal string in the document, not a number.
export const availableNumber: number = null as unknown as InsufficientBalanceError["metadata"]["available"];
export const limit: Equal<InvalidInputError["metadata"], Variant<"INVALID_INPUT">["metadata"]> = true;
export const conflict: Equal<StateConflictError["metadata"], Variant<"STATE_CONFLICT">["metadata"]> = true;
export const rate: Equal<RateLimitError["metadata"]["retryAfter"], number> = true;
export const field: Equal<ValidationError["metadata"], Variant<"VALIDATION_ERROR">["metadata"] | undefined> = true;
export const reason: Equal<InvalidCredentialsError["metadata"], Variant<"INVALID_CREDENTIALS">["metadata"] | undefined> = true;
export const none: Equal<ResourceNotFoundError["metadata"], undefined> = true;
`;

describe("the SDK's error classes", () => {
  it("take each code's metadata type from the committed OpenAPI document", () => {
    assert.deepEqual(diagnostics({ "checks.ts": SDK_CHECKS }), []);
  });
});

describe("error metadata generated from the OpenAPI document", () => {
  it("types each code's metadata from the document when it describes the code, else keeps the SDK's", async () => {
    const generated = (await renderFiles(PER_CODE_DOCUMENT))[TYPES_FILE];
    assert.match(generated, /code: "INSUFFICIENT_BALANCE";/);
    assert.deepEqual(diagnostics({ "generated.ts": generated, "checks.ts": CHECKS }), []);
  });

  it("keeps the SDK's metadata for every code while the document describes codes as any string", async () => {
    const generic = structuredClone(PER_CODE_DOCUMENT) as any;
    generic.components.schemas.Error.properties.error = {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        metadata: { type: "object", additionalProperties: true },
      },
    };
    const generated = (await renderFiles(generic))[TYPES_FILE];
    const errors = diagnostics({ "generated.ts": generated, "checks.ts": CHECKS });
    // Now the fallback is the type of every code: the documented object no longer fits, and the
    // expected error is gone.
    assert.ok(
      errors.some((message) => /Unused '@ts-expect-error' directive/.test(message)),
      errors.join("\n"),
    );
    assert.ok(
      errors.some((message) => /not assignable/.test(message)),
      errors.join("\n"),
    );
  });
});
