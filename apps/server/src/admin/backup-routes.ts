/**
 * The embedded store's backup while the service runs (docs/operations.md), under /admin/v1:
 *
 * - GET /backup -> 200 application/gzip: a consistent copy of the embedded database, taken
 *   between two transactions (`satang backup <file>` asks for it when the server holds the
 *   data directory). On PostgreSQL: 409 STATE_CONFLICT (reason backup_by_postgresql): its
 *   backups are PostgreSQL's own (continuous WAL archiving and base backups).
 *
 * The copy holds every record, with integration secrets still encrypted: the key (SECRET_KEY or
 * DATA_DIR/secret.key) is not in it and is kept apart.
 */
import type { FastifyPluginAsync } from "fastify";
import { documented } from "../http/openapi-errors.ts";
import { AppError } from "../lib/errors.ts";

const onPostgres = () =>
  new AppError(
    "STATE_CONFLICT",
    "This server's database is PostgreSQL: back it up with PostgreSQL's tools (docs/operations.md)",
    { reason: "backup_by_postgresql" },
  );

export function backupRoutes(ctx: { databaseDump: (() => Promise<Blob>) | undefined }): FastifyPluginAsync {
  return async (app) => {
    app.get(
      "/backup",
      {
        schema: {
          tags: ["admin"],
          summary: "Download a consistent copy of the embedded database",
          operationId: "downloadEmbeddedBackup",
          description:
            "application/gzip: a tar of the embedded database's directory, taken between two " +
            "transactions while the service runs (requests wait for the moment of the copy). " +
            "`satang restore <file>` puts it back with the server stopped. The encryption key of " +
            "integration secrets is not in the copy.",
          "x-errors": [documented("The database is PostgreSQL, backed up by its own tools", onPostgres())],
          produces: ["application/gzip"],
        },
      },
      async (_request, reply) => {
        if (!ctx.databaseDump) throw onPostgres();
        const copy = Buffer.from(await (await ctx.databaseDump()).arrayBuffer());
        const stamp = new Date().toISOString().replace(/[:.]/g, "-");
        return reply
          .header("Content-Type", "application/gzip")
          .header("Content-Disposition", `attachment; filename="satang-${stamp}.tar.gz"`)
          .header("Cache-Control", "no-store")
          .send(copy);
      },
    );
  };
}
