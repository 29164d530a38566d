/**
 * `npm run lint:openapi`: lints the OpenAPI documents the service publishes at
 * GET /api/v1/openapi.json (sandbox and live) with Redocly's linter, under the rules of
 * redocly.yaml at the repository root.
 *
 * The documents come from the app itself: buildApp over a database handle that never connects
 * (the document needs the routes' schemas, not data), asked for its document by an injected
 * request, so nothing listens and no database is needed. They are written to a temporary folder
 * and linted there. Redocly runs offline: telemetry and its update check are off, and the
 * configuration names no remote ruleset or `$ref`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from "kysely";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import type { Database } from "../src/db/types.ts";
import { buildDeps } from "../src/deps.ts";
import { SecretBox } from "../src/lib/crypto.ts";

const REPOSITORY_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** A query builder with no connection: building the app and its document sends no statement. */
function unconnectedDatabase(): Kysely<Database> {
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}

/** The document an app configured by `env` serves. */
export async function publishedDocument(env: NodeJS.ProcessEnv): Promise<unknown> {
  const config = loadConfig(env);
  const db = unconnectedDatabase();
  const deps = buildDeps({ config, db, storeKind: "postgres", secrets: new SecretBox(Buffer.alloc(32, 7)) });
  const app = await buildApp(deps);
  try {
    const response = await app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    if (response.statusCode !== 200)
      throw new Error(`GET /api/v1/openapi.json answered ${response.statusCode}`);
    return response.json();
  } finally {
    await app.close();
    await db.destroy();
  }
}

/** The environments whose documents are linted: sandbox has the sandbox routes, live its own text. */
const ENVIRONMENTS = {
  sandbox: { SATANG_ENV: "sandbox", PUBLIC_BASE_URL: "http://127.0.0.1:3000" },
  // Live needs a connector: SCB with placeholder settings (nothing is called; the document is
  // built without a request to anyone) and the manual desk for payouts.
  live: {
    SATANG_ENV: "live",
    PUBLIC_BASE_URL: "https://api.satang.example",
    SECRET_KEY: "ab".repeat(32),
    SATANG_PROVIDER: "scb",
    SCB_API_BASE_URL: "https://api.scb.example",
    SCB_API_KEY: "placeholder-key",
    SCB_API_SECRET: "placeholder-secret",
    SCB_BILLER_ID: "010556012345678",
    SCB_CALLBACK_TOKEN: "placeholder_callback_token_0123456789abcdef",
    SATANG_PAYOUTS: "manual",
  },
} as const;

async function main(): Promise<number> {
  const folder = mkdtempSync(join(tmpdir(), "satang-openapi-"));
  try {
    const files: string[] = [];
    for (const [name, env] of Object.entries(ENVIRONMENTS)) {
      const file = join(folder, `openapi-${name}.json`);
      writeFileSync(file, `${JSON.stringify(await publishedDocument(env), null, 2)}\n`);
      files.push(file);
    }
    const redocly = createRequire(join(REPOSITORY_ROOT, "package.json")).resolve("@redocly/cli/bin/cli.js");
    const result = spawnSync(
      process.execPath,
      [
        redocly,
        "lint",
        "--config",
        join(REPOSITORY_ROOT, "redocly.yaml"),
        "--max-problems",
        "1000",
        ...files,
      ],
      {
        cwd: REPOSITORY_ROOT,
        stdio: "inherit",
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      },
    );
    return result.status ?? 1;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === "--print") {
    process.stdout.write(`${JSON.stringify(await publishedDocument(ENVIRONMENTS.sandbox), null, 2)}\n`);
  } else {
    process.exitCode = await main();
  }
}
