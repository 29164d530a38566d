/**
 * R3, on the service started as `npm start` starts it, each load signed v1 (as the README
 * shows: a v1 read records its signature, so no empty-body write can use it) and v2 (as the
 * SDK does): retrieve by id / the baseline PK SELECT (v1 >= 0.7, v2 >= 0.9); list with default
 * parameters / the same (v1 >= 0.5; v2 an extra row). Each load is set against the baseline
 * loads just before and after it (bench/lib/load.ts `bracketed`).
 */
import type { Context } from "../lib/context.ts";
import { cpuBasis } from "../lib/cpu.ts";
import { bracketed, closedLoop, type Measured } from "../lib/load.ts";
import { goalRow, ms, type Row, statementsRow } from "../lib/report.ts";
import { baselineSelect, createPayment, getSigned, type Signing, sendOnce } from "../lib/requests.ts";
import { logStatementTexts, statementsSent } from "../lib/servers.ts";

interface ReadLoad {
  id: string;
  label: string;
  path: () => string;
  signing: Signing;
  atLeast?: number;
}

/** One closed-loop load of reads: its rows (ratio, statements, CPU) against the given baseline's. */
async function readLoad(ctx: Context, load: ReadLoad): Promise<(base: Measured) => Row[]> {
  const { seconds, connections } = ctx.settings;
  const credentials = ctx.satang.info;
  await statementsSent(ctx.satang);
  await logStatementTexts(ctx.satang, ctx.log);
  const measured = await closedLoop(ctx.satang.url, () => getSigned(credentials, load.path(), load.signing), {
    connections,
    seconds,
    pid: ctx.satang.child.pid,
  });
  const statements = await statementsSent(ctx.satang);
  const label = `${load.label}, ${load.signing}`;
  await logStatementTexts(ctx.satang, ctx.log, { label, answered: measured.ok });
  return (base) => [
    goalRow(
      load.id,
      `${label} / baseline SELECT (req/s)`,
      measured.rps / base.rps,
      load.atLeast === undefined ? {} : { atLeast: load.atLeast },
      `${measured.rps} / ${base.rps} req/s; p99 ${ms(measured.p99)} / ${ms(base.p99)}; failed ${measured.failed}`,
    ),
    statementsRow(label, statements, measured.ok),
    goalRow(
      "CPU",
      `${label}: server CPU per request (µs)`,
      measured.cpu?.server ?? 0,
      {},
      cpuBasis(measured.cpu, base.cpu),
    ),
  ];
}

export async function runReads(ctx: Context): Promise<void> {
  const { seconds, connections } = ctx.settings;
  const credentials = ctx.satang.info;
  // A full default page (10) to list, whether or not R1 ran before and left its payments.
  const created = await Promise.all(
    Array.from({ length: 10 }, () => sendOnce(ctx.satang.url, createPayment(credentials))),
  );
  // Each retrieve asks for the next of the ten, so a group of retrieves reads different rows.
  const paymentIds: string[] = created.map((answer) => answer.json.data.id);
  let next = 0;
  const retrieve = () => `/api/v1/payments/${paymentIds[next++ % paymentIds.length]}`;
  const list = () => "/api/v1/payments";
  ctx.log(
    "R3: retrieve payment v1 and v2, list payments v1 and v2 (closed loop), each between two baseline SELECT loads",
  );
  const loads: ReadLoad[] = [
    { id: "R3", label: "retrieve payment", path: retrieve, signing: "v1", atLeast: 0.7 },
    { id: "R3", label: "retrieve payment", path: retrieve, signing: "v2", atLeast: 0.9 },
    { id: "R3", label: "list payments (default)", path: list, signing: "v1", atLeast: 0.5 },
    { id: "R3+", label: "list payments (default)", path: list, signing: "v2" },
  ];
  // As R1's: a service that just started compiles its hot code under its first load, so a
  // warm-up load of every request below, taken in turn (not reported), keeps the first row
  // measured (v1 retrieve) from carrying it when R3 runs alone (`--only=r3`).
  let turn = 0;
  const warmUp = () => {
    const load = loads[turn++ % loads.length]!;
    return getSigned(credentials, load.path(), load.signing);
  };
  await closedLoop(ctx.satang.url, warmUp, { connections, seconds: Math.min(3, seconds) });
  // The baseline's first SELECT load is as cold as the service's: it is warmed up alike.
  const select = () => baselineSelect(ctx.baseline.info.rowId);
  await closedLoop(ctx.baseline.url, select, { connections, seconds: Math.min(3, seconds) });
  const { results } = await bracketed(
    () => closedLoop(ctx.baseline.url, select, { connections, seconds, pid: ctx.baseline.child.pid }),
    loads.map((load) => () => readLoad(ctx, load)),
  );
  for (const { result: rows, base } of results) ctx.rows.push(...rows(base));
}
