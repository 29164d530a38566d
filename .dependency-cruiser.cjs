/**
 * The direction of imports in apps/server/src (docs/architecture.md draws the same map), checked
 * by `npm run lint`. Each layer may import its own layer and the layers below it, never one
 * above; and no file may import itself back through a cycle, type imports included.
 *
 *   top             app.ts server.ts bootstrap.ts deps.ts main.ts cli/
 *   orchestration   lifecycle/ jobs/ sandbox/ hosted/ dashboard/ admin/ ops/ payout-desk/
 *   adapters        providers/
 *   resources       payments/ withdraws/ refunds/ events/ balance/ reports/
 *   core            merchants/ integrations/ ledger/ events/outbox.ts events/store.ts
 *   infrastructure  lib/ db/ http/ config.ts data-dir.ts
 */
const SRC = "^apps/server/src/";
const layer = (...parts) => `${SRC}(${parts.join("|")})`;

const INFRASTRUCTURE = layer("lib/", "db/", "http/", "config\\.ts$", "data-dir\\.ts$");
const CORE = layer(
  "merchants/",
  "integrations/",
  "ledger/",
  "audit/",
  "events/outbox\\.ts$",
  "events/store\\.ts$",
);
const RESOURCES = layer("payments/", "withdraws/", "refunds/", "events/", "balance/", "reports/");
const ADAPTERS = layer("providers/");
/** The connectors' table types, which the database's type gathers (type only). */
const CONNECTOR_TABLES = `${SRC}providers/[a-z0-9-]+/tables\\.ts$`;
const ORCHESTRATION = layer(
  "lifecycle/",
  "jobs/",
  "sandbox/",
  "hosted/",
  "dashboard/",
  "admin/",
  "ops/",
  "payout-desk/",
);
const TOP = layer("app\\.ts$", "server\\.ts$", "bootstrap\\.ts$", "deps\\.ts$", "main\\.ts$", "cli/");

const above = (...layers) => ({ path: layers });

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A cycle is a design question, not a shortcut: move the shared piece down a layer.",
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: "lib-is-the-floor",
      severity: "error",
      comment: "lib/ holds primitives (money, clock, ids, limits, errors): it imports nothing else of ours.",
      from: { path: `${SRC}lib/` },
      to: { path: SRC, pathNot: `${SRC}lib/` },
    },
    {
      name: "infrastructure-imports-no-domain",
      severity: "error",
      comment:
        "lib, db, http and config are the bottom: what they need from above (the API key lookup of " +
        "http/auth.ts) is injected by the composition root.",
      from: { path: INFRASTRUCTURE },
      to: { ...above(CORE, RESOURCES, ADAPTERS, ORCHESTRATION, TOP) },
    },
    {
      name: "connector-tables-import-nothing-of-ours",
      severity: "error",
      comment:
        "A connector's table types (providers/<name>/tables.ts) depend on the query builder alone; " +
        "its db.ts joins them to the core's Database for its own queries, and nothing below reads them.",
      from: { path: CONNECTOR_TABLES },
      to: { path: SRC, pathNot: CONNECTOR_TABLES },
    },
    {
      name: "core-imports-infrastructure-only",
      severity: "error",
      comment: "merchants, integrations, the ledger and the events outbox serve every resource above them.",
      from: { path: CORE },
      to: { ...above(RESOURCES, ADAPTERS, ORCHESTRATION, TOP), pathNot: CORE },
    },
    {
      name: "resources-import-no-orchestration",
      severity: "error",
      comment:
        "payments, withdraws, events and balance own their rules and states; lifecycle, jobs, " +
        "providers and the edges call them, never the other way round.",
      from: { path: RESOURCES, pathNot: CORE },
      to: above(ADAPTERS, ORCHESTRATION, TOP),
    },
    {
      name: "providers-are-adapters",
      severity: "error",
      comment:
        "A provider implements the Provider interface over a bank; the lifecycle calls it. A " +
        "provider never reaches into the lifecycle, the routes or the composition root.",
      from: { path: ADAPTERS },
      to: above(ORCHESTRATION, TOP),
    },
    {
      name: "orchestration-imports-no-top",
      severity: "error",
      comment:
        "Jobs, lifecycle and the route plugins take the handles they use; only the top (app, " +
        "server, bootstrap, cli) knows the whole process (deps.ts).",
      from: { path: ORCHESTRATION },
      to: above(TOP),
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)assets/" },
    includeOnly: SRC,
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs"] },
  },
};
