/**
 * R4: create withdraw spread over many wallets / create payment (R1's load, run just before and
 *     just after it), >= 0.7.
 * R5: one hot wallet, closed loop / the serial bound (1 / median BEGIN-to-COMMIT time of a
 *     withdraw run alone), >= 0.8.
 * R6: create withdraw p50 with 100,000 paid withdraws already in the wallet's month / with 10,
 *     <= 1.2 (both wallets have limits, so the month's sums are read).
 */
import type { Context } from "../lib/context.ts";
import { cpuBasis } from "../lib/cpu.ts";
import { settle } from "../lib/database.ts";
import { bracketed, closedLoop, type Measured, timedLoop } from "../lib/load.ts";
import { goalRow, ms, statementsRow } from "../lib/report.ts";
import { createPayment, createWithdraw, type Signing, sendOnce } from "../lib/requests.ts";
import { logStatementTexts, statementsSent, transactionTimes } from "../lib/servers.ts";
import { seedWithdraws, wallets } from "../lib/setup.ts";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function spread(ctx: Context): Promise<void> {
  const { seconds, connections } = ctx.settings;
  ctx.log(`R4: making ${ctx.settings.wallets} funded wallets`);
  const many = await wallets(ctx.bench, ctx.settings.wallets);
  let next = 0;
  ctx.log(
    "R4: create withdraw over every wallet in turn, v1 then v2 (closed loop), between loads of R1's creates",
  );
  // The denominator is R1's load (create payment, default merchant, v1) run just before and just
  // after each withdraw load on the same service (bench/lib/load.ts `bracketed`), rather than
  // R1's own figure from minutes earlier in the run, as the machine's speed drifts over a run.
  const withdrawLoad = (signing: Signing, label: string) => async () => {
    await statementsSent(ctx.satang);
    await logStatementTexts(ctx.satang, ctx.log);
    const measured = await closedLoop(
      ctx.satang.url,
      () => createWithdraw(many[next++ % many.length]!, "10.00", signing),
      { connections, seconds, pid: ctx.satang.child.pid },
    );
    const statements = await statementsSent(ctx.satang);
    await logStatementTexts(ctx.satang, ctx.log, { label, answered: measured.ok });
    return { measured, statements };
  };
  const { results } = await bracketed(
    () => closedLoop(ctx.satang.url, () => createPayment(ctx.satang.info), { connections, seconds }),
    [withdrawLoad("v1", "R4"), withdrawLoad("v2", "R4+")],
  );
  const [v1, v2] = results;
  ctx.rows.push(
    ...withdrawRows("R4", "v1", many.length, v1!),
    ...withdrawRows("R4+", "v2", many.length, v2!),
  );
}

/** One withdraw load (its answers and the statements it sent) and the creates' loads around it. */
interface WithdrawResult {
  result: { measured: Measured; statements: number };
  base: Measured;
}

/** The rows of one withdraw load against the creates around it: the ratio, its CPU and statements. */
function withdrawRows(
  goal: "R4" | "R4+",
  signing: Signing,
  walletCount: number,
  { result: { measured, statements }, base: creates }: WithdrawResult,
) {
  const what = `create withdraw, ${signing}${signing === "v2" ? " with a key (the SDK)" : ""}`;
  return [
    goalRow(
      goal,
      `${what}, over ${walletCount} wallets / create payment`,
      measured.rps / creates.rps,
      goal === "R4" ? { atLeast: 0.7 } : {},
      `${measured.rps} / ${creates.rps} req/s; p99 ${ms(measured.p99)} / ${ms(creates.p99)}; failed ${measured.failed}`,
    ),
    goalRow(
      "CPU",
      `${what}: server CPU per request (µs)`,
      measured.cpu?.server ?? 0,
      {},
      cpuBasis(measured.cpu),
    ),
    statementsRow(what, statements, measured.ok),
  ];
}

async function hot(ctx: Context): Promise<void> {
  const { seconds, connections } = ctx.settings;
  const wallet = ctx.satang.info;
  ctx.log("R5: one wallet, serially (1 connection), then closed loop");
  await transactionTimes(ctx.satang);
  // Each request an amount of its own: a wallet collecting thousands of open payouts of one
  // amount makes every admission compare the payee's name with each of them (the payout
  // guard), a cost that grows during the load and has nothing to do with the lock.
  const serial = await closedLoop(ctx.satang.url, () => createWithdraw(wallet, "distinct"), {
    connections: 1,
    seconds: Math.max(2, seconds / 2),
  });
  const txMedian = median(await transactionTimes(ctx.satang));
  const bound = 1000 / txMedian;
  const loaded = await closedLoop(ctx.satang.url, () => createWithdraw(wallet, "distinct"), {
    connections,
    seconds,
  });
  // The same transactions under the load: how much longer each holds the wallet than alone.
  const loadedTx = median(await transactionTimes(ctx.satang));
  ctx.rows.push(
    goalRow(
      "R5",
      "one hot wallet / serial bound (req/s)",
      loaded.rps / bound,
      { atLeast: 0.8 },
      `${loaded.rps} / ${Math.round(bound)} req/s (transaction median ${ms(txMedian)} alone, ${ms(loadedTx)} under the load; serial ${serial.rps} req/s); failed ${loaded.failed}`,
    ),
  );
}

async function deepMonth(ctx: Context): Promise<void> {
  const seconds = Math.max(2, ctx.settings.seconds / 2);
  const seed = ctx.settings.withdrawsSeed;
  const [small, large] = await wallets(ctx.bench, 2, true);
  ctx.log(`R6: seeding 10 and ${seed} withdraws into two wallets' month`);
  for (const [wallet, count] of [
    [small!, 10],
    [large!, seed],
  ] as const) {
    const template = await sendOnce(ctx.satang.url, createWithdraw(wallet));
    await seedWithdraws(ctx.bench.url, template.json.data.id, count - 1);
  }
  const few = await timedLoop(ctx.satang.url, () => createWithdraw(small!), { connections: 1, seconds });
  const many = await timedLoop(ctx.satang.url, () => createWithdraw(large!), { connections: 1, seconds });
  ctx.rows.push(
    goalRow(
      "R6",
      `create withdraw p50, ${seed} in month / 10`,
      many.p50 / few.p50,
      { atMost: 1.2 },
      `${ms(many.p50)} / ${ms(few.p50)} (1 connection); failed ${many.failed + few.failed}`,
    ),
  );
}

export async function runWithdraws(ctx: Context, which: Set<string>): Promise<void> {
  // Each load starts on a settled database, as each scenario does (bench/run.ts): R4's thousands
  // of new withdraws, holds and change rows are vacuumed and written out before R5 measures.
  const steps: [string, (ctx: Context) => Promise<void>][] = [
    ["r4", spread],
    ["r5", hot],
    ["r6", deepMonth],
  ];
  let first = true;
  for (const [id, run] of steps) {
    if (!which.has(id)) continue;
    if (!first) await settle(ctx.bench.url);
    first = false;
    await run(ctx);
  }
}
