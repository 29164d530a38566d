/**
 * Named prepared statements on and off, compared on a noisy machine: two copies of the
 * service in this process on one fresh PostgreSQL database, one with DATABASE_PREPARED_STATEMENTS
 * on and one off, driven in alternating short blocks of serial requests (inject), so both see
 * the same background load. Prints the median time per request of each kind, on and off.
 *
 *   node --import tsx bench/prepared.ts          # PREPARED_ROUNDS=20 PREPARED_BLOCK=40
 */
import { performance } from "node:perf_hooks";
import { buildApp } from "../apps/server/src/app.ts";
import { openStore } from "../apps/server/src/db/connect.ts";
import { migrateToLatest } from "../apps/server/src/db/migrate.ts";
import { buildDeps } from "../apps/server/src/deps.ts";
import { SecretBox } from "../apps/server/src/lib/crypto.ts";
import { createBenchDatabase, DEFAULT_BENCH_URL } from "./lib/database.ts";
import { createPayment, getSigned, type PlainRequest } from "./lib/requests.ts";
import { BENCH_SECRET_KEY, openBench, wallets } from "./lib/setup.ts";

const rounds = Number(process.env.PREPARED_ROUNDS ?? 20);
const block = Number(process.env.PREPARED_BLOCK ?? 40);
const database = await createBenchDatabase(process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL, "prepared");
const bench = await openBench(database.url);
await migrateToLatest(bench.store.db);
const [wallet] = await wallets(bench, 1);

async function service(prepared: boolean) {
  const store = await openStore({ databaseUrl: database.url, poolSize: 2, preparedStatements: prepared });
  const deps = buildDeps({
    ...bench.deps,
    db: store.db,
    storeKind: store.kind,
    secrets: new SecretBox(BENCH_SECRET_KEY),
  });
  const app = await buildApp(deps);
  await app.ready();
  const send = (r: PlainRequest) =>
    app.inject({ method: r.method, url: r.path, headers: r.headers, ...(r.body ? { payload: r.body } : {}) });
  return { store, app, send };
}

const on = await service(true);
const off = await service(false);
const created = await on.send(createPayment(wallet!));
const paymentId = (created.json() as { data: { id: string } }).data.id;
const kinds: Record<string, () => PlainRequest> = {
  create: () => createPayment(wallet!),
  retrieve: () => getSigned(wallet!, `/api/v1/payments/${paymentId}`),
  list: () => getSigned(wallet!, "/api/v1/payments"),
};
const times: Record<string, number[]> = {};
for (let round = 0; round < rounds; round += 1) {
  for (const [kind, make] of Object.entries(kinds)) {
    for (const [label, target] of round % 2
      ? ([
          ["off", off],
          ["on", on],
        ] as const)
      : ([
          ["on", on],
          ["off", off],
        ] as const)) {
      const key = `${kind} ${label}`;
      for (let i = 0; i < block; i += 1) {
        const request = make();
        const started = performance.now();
        const answer = await target.send(request);
        if (answer.statusCode >= 300) throw new Error(`${key}: HTTP ${answer.statusCode}`);
        times[key] = [...(times[key] ?? []), performance.now() - started];
      }
    }
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const kind of Object.keys(kinds)) {
  const a = median(times[`${kind} on`]!);
  const b = median(times[`${kind} off`]!);
  console.log(
    `${kind.padEnd(9)} on ${a.toFixed(2)} ms  off ${b.toFixed(2)} ms  on/off ${(a / b).toFixed(2)}`,
  );
}
for (const target of [on, off]) {
  await target.app.close();
  await target.store.close();
}
await bench.store.close();
await database.drop();
