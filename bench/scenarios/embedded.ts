/** R8: create payment on the embedded store (PGlite) / on PostgreSQL, one connection each (>= 0.4). */
import type { Context } from "../lib/context.ts";
import { closedLoop } from "../lib/load.ts";
import { goalRow, ms } from "../lib/report.ts";
import { createPayment } from "../lib/requests.ts";
import { startServer, stopServer } from "../lib/servers.ts";

export async function runEmbedded(ctx: Context): Promise<void> {
  const seconds = ctx.settings.seconds;
  ctx.log("R8: create payment at 1 connection, embedded then PostgreSQL (pool of 1)");
  const embedded = await startServer("satang", { BENCH_STORE: "embedded" });
  const lite = await closedLoop(embedded.url, () => createPayment(embedded.info), {
    connections: 1,
    seconds,
  });
  await stopServer(embedded);
  const single = await startServer("satang", { BENCH_POOL_SIZE: "1" });
  const postgres = await closedLoop(single.url, () => createPayment(single.info), {
    connections: 1,
    seconds,
  });
  await stopServer(single);
  ctx.rows.push(
    goalRow(
      "R8",
      "create, PGlite / PostgreSQL, 1 connection",
      lite.rps / postgres.rps,
      { atLeast: 0.4 },
      `${lite.rps} / ${postgres.rps} req/s; p50 ${ms(lite.p50)} / ${ms(postgres.p50)}`,
    ),
  );
}
