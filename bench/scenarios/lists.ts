/**
 * R7: list p50 at 1,000,000 payments of one merchant / at 10,000 (<= 2), with default
 * parameters and with a status filter; each `total` checked against count(*).
 */
import type { Context } from "../lib/context.ts";
import { query } from "../lib/database.ts";
import { timedLoop } from "../lib/load.ts";
import { goalRow, ms } from "../lib/report.ts";
import { createPayment, getSigned, sendOnce } from "../lib/requests.ts";
import { seedPayments, type Wallet, wallets } from "../lib/setup.ts";

async function exactTotal(ctx: Context, wallet: Wallet, path: string, status?: string): Promise<boolean> {
  const answer = await sendOnce(ctx.satang.url, getSigned(wallet, path));
  const counted = await query<{ n: string }>(
    ctx.bench.url,
    `SELECT count(*) AS n FROM payments WHERE merchant_id = $1 ${status ? "AND status = $2" : ""}`,
    status ? [wallet.merchantId, status] : [wallet.merchantId],
  );
  return Number(answer.json.data?.total) === Number(counted[0]!.n);
}

export async function runLists(ctx: Context): Promise<void> {
  const seconds = Math.max(2, ctx.settings.seconds / 2);
  const seed = ctx.settings.paymentsSeed;
  const [small, large] = await wallets(ctx.bench, 2);
  ctx.log(`R7: seeding 10000 and ${seed} payments`);
  for (const [wallet, count] of [
    [small!, 10_000],
    [large!, seed],
  ] as const) {
    const template = await sendOnce(ctx.satang.url, createPayment(wallet));
    await seedPayments(ctx.bench.url, template.json.data.id, count - 1);
  }
  for (const [label, path, status] of [
    ["default", "/api/v1/payments", undefined],
    ["status=expired", "/api/v1/payments?status=expired", "expired"],
  ] as const) {
    const few = await timedLoop(ctx.satang.url, () => getSigned(small!, path), { connections: 4, seconds });
    const many = await timedLoop(ctx.satang.url, () => getSigned(large!, path), { connections: 4, seconds });
    const exact =
      (await exactTotal(ctx, small!, path, status)) && (await exactTotal(ctx, large!, path, status));
    ctx.rows.push(
      goalRow(
        "R7",
        `list p50 (${label}), ${seed} / 10000 payments`,
        many.p50 / few.p50,
        { atMost: 2 },
        `${ms(many.p50)} / ${ms(few.p50)} (4 connections); total exact: ${exact ? "yes" : "NO"}`,
      ),
    );
  }
}
