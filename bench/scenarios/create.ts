/**
 * R1: create payment throughput / the baseline INSERT's (closed loop), on the service started
 * as `npm start` starts it, for its default merchant (PromptPay reuse on), signed v1 as the
 * README shows (the goal's row) and v2 as the SDK does; and the server's peak RSS under it.
 * Each create names a customer of its own, so each is a new payment; an extra row sends one
 * customer and amount every time (each create after the first is a PromptPay reuse).
 * R2: create p99 at a fixed rate of half the baseline's throughput / the baseline's p99 at
 * that rate (open loop, coordinated omission corrected), signed v1.
 * Each load is set against the baseline loads just before and after it (bench/lib/load.ts
 * `bracketed`), as the machine's speed drifts over a run.
 */
import type { Context } from "../lib/context.ts";
import { cpuBasis } from "../lib/cpu.ts";
import { bracketed, closedLoop, type Measured } from "../lib/load.ts";
import { goalRow, ms, type Row, statementsRow } from "../lib/report.ts";
import { baselineInsert, createPayment, type Signing } from "../lib/requests.ts";
import { peakRssMb, statementsSent } from "../lib/servers.ts";
import { runCreateOpenLoop } from "./create-open.ts";

/** One closed-loop load of creates: what it measured and the statements it sent. */
async function createLoad(
  ctx: Context,
  label: string,
  make: () => ReturnType<typeof createPayment>,
): Promise<{ measured: Measured; statements: number; label: string }> {
  const { seconds, connections } = ctx.settings;
  await statementsSent(ctx.satang);
  const measured = await closedLoop(ctx.satang.url, make, {
    connections,
    seconds,
    pid: ctx.satang.child.pid,
  });
  return { measured, statements: await statementsSent(ctx.satang), label };
}

/** A create load's rows against the baseline loads around it (bench/lib/load.ts `bracketed`). */
function createRows(
  load: { measured: Measured; statements: number; label: string },
  base: Measured,
  goal: { id: string; atLeast?: number },
): Row[] {
  const { measured, statements, label } = load;
  return [
    goalRow(
      goal.id,
      `${label} / baseline INSERT (req/s)`,
      measured.rps / base.rps,
      goal.atLeast === undefined ? {} : { atLeast: goal.atLeast },
      `${measured.rps} / ${base.rps} req/s; p99 ${ms(measured.p99)} / ${ms(base.p99)}; failed ${measured.failed}`,
    ),
    goalRow(
      "CPU",
      `${label}: server CPU per request (µs)`,
      measured.cpu?.server ?? 0,
      {},
      cpuBasis(measured.cpu, base.cpu),
    ),
    statementsRow(label, statements, measured.ok),
  ];
}

export async function runCreate(ctx: Context): Promise<void> {
  const { seconds, connections } = ctx.settings;
  const credentials = ctx.satang.info;
  ctx.log("R1: create payment v1, v2, one customer (closed loop), each between two baseline INSERT loads");
  const signedAs = (signing: Signing) => () => createPayment(credentials, signing);
  // A service that just started compiles its hot code and prepares its statements under the
  // first load: a warm-up load (not reported), so the first row measured (v1) does not carry it.
  await closedLoop(ctx.satang.url, signedAs("v2"), { connections, seconds: Math.min(3, seconds) });
  // The baseline's first INSERT load is as cold as the service's: it is warmed up alike.
  await closedLoop(ctx.baseline.url, baselineInsert, { connections, seconds: Math.min(3, seconds) });
  let rss = 0;
  const { results, all } = await bracketed(
    () => closedLoop(ctx.baseline.url, baselineInsert, { connections, seconds, pid: ctx.baseline.child.pid }),
    [
      async () => {
        const load = await createLoad(ctx, "create payment, default merchant, v1", signedAs("v1"));
        rss = peakRssMb(ctx.satang);
        return load;
      },
      () => createLoad(ctx, "create payment, default merchant, v2", signedAs("v2")),
      () =>
        createLoad(ctx, "create payment, one customer and amount (reused), v1", () =>
          createPayment(credentials, "v1", true),
        ),
    ],
  );
  const [v1, v2, reused] = results;
  if (!v1 || !v2 || !reused) throw new Error("R1 measured fewer loads than it ran");
  ctx.rows.push(
    ...createRows(v1.result, v1.base, { id: "R1", atLeast: 0.6 }),
    goalRow("RSS", "server peak RSS under R1 (MB)", rss, { atMost: 250 }, `VmHWM of the server process`),
    ...createRows(v2.result, v2.base, { id: "R1+" }),
    ...createRows(reused.result, reused.base, { id: "R1+" }),
  );
  await runCreateOpenLoop(ctx, all.rps, signedAs("v1"));
}
