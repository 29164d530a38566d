/**
 * `satang serve`, `satang worker` and `satang migrate`: the commands that run the service
 * itself against its database. The server modules (fastify, the database drivers) are loaded
 * only when one of these runs, so the operator commands start quickly.
 */
import type { Command } from "commander";
import { loadConfig } from "../../config.ts";
import type { CommandContext } from "../io.ts";
import { printResult } from "../options.ts";

function registerServe(program: Command, { io, finish }: CommandContext): void {
  program
    .command("serve")
    .description("serve the API (and run the background workers unless --no-workers)")
    .option("--no-workers", "serve requests only; run the workers in another process")
    .action(async (flags: { workers: boolean }) => {
      const config = loadConfig(io.env);
      const { startServer } = await import("../../server.ts");
      const server = await startServer(config, { handleSignals: true, workers: flags.workers });
      finish({ server });
    });
}

function registerWorker(program: Command, { io, finish }: CommandContext): void {
  program
    .command("worker")
    .description("run the background workers only, no HTTP (pair with `serve --no-workers`)")
    .action(async () => {
      const config = loadConfig(io.env);
      const { startWorker } = await import("../../server.ts");
      const worker = await startWorker(config, { handleSignals: true });
      finish({ worker });
    });
}

function registerMigrate(program: Command, { io }: CommandContext): void {
  program
    .command("migrate")
    .description("apply pending database migrations and exit")
    .option("--json", "print the machine-readable result")
    .action(async (flags: { json?: boolean }) => {
      const config = loadConfig(io.env);
      const [{ openConfiguredStore }, { migrateToLatest }] = await Promise.all([
        import("../../server.ts"),
        import("../../db/migrate.ts"),
      ]);
      const store = await openConfiguredStore(config);
      try {
        const { applied } = await migrateToLatest(store.db);
        printResult(io, flags, { applied }, () =>
          applied.length === 0
            ? "The database is up to date: no migration to apply."
            : `Applied ${applied.length} migration(s):\n${applied.map((name) => `  ${name}`).join("\n")}`,
        );
      } finally {
        await store.close();
      }
    });
}

/** Adds serve, worker and migrate to the program. */
export function registerServerCommands(program: Command, context: CommandContext): void {
  registerServe(program, context);
  registerWorker(program, context);
  registerMigrate(program, context);
}
