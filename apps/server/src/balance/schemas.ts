/**
 * Response schema of GET /api/v1/balance: the fields of interface.md's Balance table.
 */
import { type Static, Type } from "typebox";
import { stringEnum } from "../http/list-query.ts";
import type { JsonSatang } from "../lib/money.ts";

export const WALLET_STATUSES = ["active", "frozen", "closed"] as const;

export const BalanceSchema = Type.Object({
  // JSON integers; in the service a bigint past 2^53 satang, written exactly (lib/money.ts).
  walletBalance: Type.Unsafe<JsonSatang>(
    Type.Integer({
      description:
        "Available wallet in satang (wallet minus holds). Below zero only after a late success: a " +
        "payout the bank paid after its hold was released is debited again even when the wallet " +
        "no longer holds it; the merchant then owes the difference and no withdraw is admitted until " +
        "settlements or operator credits bring it back above zero (docs/ledger.md)",
    }),
  ),
  settlementBalance: Type.Unsafe<JsonSatang>(
    Type.Integer({ description: "Succeeded payments awaiting settlement, in satang" }),
  ),
  currency: Type.Literal("THB"),
  status: stringEnum(WALLET_STATUSES, { description: "Wallet status" }),
});
export type BalanceRecord = Static<typeof BalanceSchema>;

export const BalanceEnvelope = Type.Object({ success: Type.Literal(true), data: BalanceSchema });
