/**
 * R1: create payment throughput / the baseline INSERT's (closed loop), and the server's peak
 * RSS under it. R2: create p99 at a fixed rate of half the baseline's throughput / the
 * baseline's p99 at that rate (open loop, coordinated omission corrected).
 */
import type { Context } from "../lib/context.ts";
import { cpuBasis } from "../lib/cpu.ts";
import { closedLoop, openLoop } from "../lib/load.ts";
import { goalRow, ms, statementsRow } from "../lib/report.ts";
import { baselineInsert, createPayment } from "../lib/requests.ts";
import { peakRssMb, statementsSent } from "../lib/servers.ts";

export async function runCreate(ctx: Context): Promise<void> {
  const { seconds, connections } = ctx.settings;
  const credentials = ctx.satang.info;
  ctx.log("R1: baseline INSERT, then create payment (closed loop)");
  const base = await closedLoop(ctx.baseline.url, baselineInsert, {
    connections,
    seconds,
    pid: ctx.baseline.child.pid,
  });
  await statementsSent(ctx.satang);
  const create = await closedLoop(ctx.satang.url, () => createPayment(credentials), {
    connections,
    seconds,
    pid: ctx.satang.child.pid,
  });
  const createStatements = await statementsSent(ctx.satang);
  const rss = peakRssMb(ctx.satang);
  ctx.figures.createRps = create.rps;
  ctx.figures.baselineInsertRps = base.rps;
  ctx.rows.push(
    goalRow(
      "R1",
      "create payment / baseline INSERT (req/s)",
      create.rps / base.rps,
      { atLeast: 0.6 },
      `${create.rps} / ${base.rps} req/s; p99 ${ms(create.p99)} / ${ms(base.p99)}; failed ${create.failed}`,
    ),
    goalRow(
      "CPU",
      "create payment: server CPU per request (µs)",
      create.cpu?.server ?? 0,
      {},
      cpuBasis(create.cpu, base.cpu),
    ),
    statementsRow("create payment", createStatements, create.ok),
    goalRow("RSS", "server peak RSS under R1 (MB)", rss, { atMost: 250 }, `VmHWM of the server process`),
  );
  const rate = Math.max(1, Math.round(base.rps / 2));
  ctx.log(`R2: open loop at ${rate} req/s, baseline then create payment`);
  const baseOpen = await openLoop(ctx.baseline.url, baselineInsert, { rate, seconds });
  const createOpen = await openLoop(ctx.satang.url, () => createPayment(credentials), { rate, seconds });
  const unanswered = createOpen.unanswered ? `; ${createOpen.unanswered} unanswered (p99 a lower bound)` : "";
  const failed = `; failed ${createOpen.failed} / ${baseOpen.failed}`;
  ctx.rows.push(
    goalRow(
      "R2",
      `create p99 / baseline p99 at ${rate} req/s`,
      createOpen.p99 / baseOpen.p99,
      { atMost: 2 },
      `${ms(createOpen.p99)} / ${ms(baseOpen.p99)}; p50 ${ms(createOpen.p50)} / ${ms(baseOpen.p50)}${unanswered}${failed}`,
    ),
  );
}
