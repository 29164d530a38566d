/** R3: retrieve by id / the baseline PK SELECT (>= 0.7); list, default params / the same (>= 0.5). */
import type { Context } from "../lib/context.ts";
import { cpuBasis } from "../lib/cpu.ts";
import { closedLoop } from "../lib/load.ts";
import { goalRow, ms, statementsRow } from "../lib/report.ts";
import { baselineSelect, createPayment, getSigned, sendOnce } from "../lib/requests.ts";
import { statementsSent } from "../lib/servers.ts";

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
  ctx.log("R3: baseline SELECT, retrieve payment, list payments (closed loop)");
  const base = await closedLoop(ctx.baseline.url, () => baselineSelect(ctx.baseline.info.rowId), {
    connections,
    seconds,
    pid: ctx.baseline.child.pid,
  });
  await statementsSent(ctx.satang);
  const retrieve = await closedLoop(
    ctx.satang.url,
    () => getSigned(credentials, `/api/v1/payments/${paymentIds[next++ % paymentIds.length]}`),
    { connections, seconds, pid: ctx.satang.child.pid },
  );
  const retrieveStatements = await statementsSent(ctx.satang);
  const list = await closedLoop(ctx.satang.url, () => getSigned(credentials, "/api/v1/payments"), {
    connections,
    seconds,
    pid: ctx.satang.child.pid,
  });
  ctx.figures.baselineSelectRps = base.rps;
  ctx.rows.push(
    goalRow(
      "R3",
      "retrieve payment / baseline SELECT (req/s)",
      retrieve.rps / base.rps,
      { atLeast: 0.7 },
      `${retrieve.rps} / ${base.rps} req/s; p99 ${ms(retrieve.p99)} / ${ms(base.p99)}; failed ${retrieve.failed}`,
    ),
    goalRow(
      "R3",
      "list payments (default) / baseline SELECT",
      list.rps / base.rps,
      { atLeast: 0.5 },
      `${list.rps} / ${base.rps} req/s; p99 ${ms(list.p99)} / ${ms(base.p99)}; failed ${list.failed}`,
    ),
    statementsRow("retrieve payment", retrieveStatements, retrieve.ok),
    goalRow(
      "CPU",
      "retrieve: server CPU per request (µs)",
      retrieve.cpu?.server ?? 0,
      {},
      cpuBasis(retrieve.cpu, base.cpu),
    ),
    goalRow(
      "CPU",
      "list: server CPU per request (µs)",
      list.cpu?.server ?? 0,
      {},
      cpuBasis(list.cpu, base.cpu),
    ),
  );
}
