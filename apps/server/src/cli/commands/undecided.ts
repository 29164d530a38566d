/**
 * `satang payouts undecided`, `satang withdraw resolve` and `satang refund resolve`: the
 * operator's side of undecided payouts (CONTRACT 15, docs/lifecycle.md). The first lists the withdraws and refunds a connector holds undecided past
 * PAYOUT_UNDECIDED_ALERT_S, with the bank's last answers; the others decide one, paid or failed,
 * with the reason and the bank's reference. They join the `payouts`, `withdraw` and `refund`
 * groups their own files create.
 */
import { satangToBaht } from "@satang/sdk";
import { type Command, InvalidArgumentError } from "commander";
import { adminClient } from "../client.ts";
import type { CommandContext } from "../io.ts";
import { clientFlags, type OutputOptions, printResult, wholeNumber } from "../options.ts";

interface BankAnswer {
  at: string;
  operation: string;
  httpStatus: number | null;
  error: string | null;
  answer: unknown;
}

interface Undecided {
  subjectType?: "withdraw" | "refund";
  withdrawId: string | null;
  refundId?: string | null;
  merchantId: string;
  amount: string;
  provider: string;
  payoutState: string;
  lastError: string | null;
  handedOverAt: string;
  undecidedSeconds: number;
  bank: { transfer: Record<string, unknown> | null; lastAnswers: BankAnswer[] } | null;
}

function answerLine(a: BankAnswer): string {
  const status = a.httpStatus === null ? `no answer (${a.error ?? "unknown"})` : `HTTP ${a.httpStatus}`;
  const code = (a.answer as { status?: { code?: unknown; description?: unknown } } | null)?.status;
  const said = code ? ` ${String(code.code)} ${String(code.description ?? "")}` : "";
  return `      ${a.at}  ${a.operation}  ${status}${said}`;
}

/** Which record the payout pays: a withdraw's id, or "refund" and the refund's id. */
function subjectOf(row: Undecided): string {
  return row.subjectType === "refund" ? `refund ${row.refundId ?? ""}` : String(row.withdrawId);
}

function undecidedLines(row: Undecided): string[] {
  const hours = (row.undecidedSeconds / 3600).toFixed(1);
  const transfer = row.bank?.transfer;
  return [
    `${subjectOf(row)}  ${satangToBaht(row.amount)} THB  ${row.provider}  undecided ${hours} h  (merchant ${row.merchantId})`,
    `    last error: ${row.lastError ?? "none"}`,
    ...(transfer
      ? [
          `    transfer: ${Object.entries(transfer)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(" ")}`,
        ]
      : []),
    ...(row.bank?.lastAnswers.length
      ? ["    bank's last answers:", ...row.bank.lastAnswers.map(answerLine)]
      : []),
  ];
}

interface ListFlags extends OutputOptions {
  page?: number;
  limit?: number;
}

interface ResolveFlags extends OutputOptions {
  outcome: "paid" | "failed";
  reason: string;
  bankReference?: string;
}

function outcomeOption(value: string): "paid" | "failed" {
  if (value !== "paid" && value !== "failed") throw new InvalidArgumentError('must be "paid" or "failed"');
  return value;
}

function group(program: Command, name: string): Command {
  const found = program.commands.find((c) => c.name() === name);
  if (!found) throw new Error(`the "${name}" command group is registered before this one`);
  return found;
}

/** Adds `payouts undecided` and `withdraw resolve` to their groups. */
export function registerUndecidedCommands(program: Command, { io }: CommandContext): void {
  clientFlags(
    group(program, "payouts")
      .command("undecided")
      .description("payouts the bank's answers leave undecided past PAYOUT_UNDECIDED_ALERT_S"),
  )
    .option("--page <n>", "page number", wholeNumber)
    .option("--limit <n>", "payouts per page", wholeNumber)
    .action(async (flags: ListFlags) => {
      const query = new URLSearchParams();
      if (flags.page !== undefined) query.set("page", String(flags.page));
      if (flags.limit !== undefined) query.set("limit", String(flags.limit));
      const suffix = query.size > 0 ? `?${query}` : "";
      const data = await adminClient(flags, io.env).call<{ data: Undecided[]; total: number }>(
        "GET",
        `/payouts/undecided${suffix}`,
      );
      printResult(io, flags, data, () =>
        data.total === 0
          ? "No undecided payouts."
          : [`${data.total} undecided payout(s):`, ...data.data.flatMap(undecidedLines)].join("\n"),
      );
    });

  for (const subject of ["withdraw", "refund"] as const) {
    clientFlags(
      group(program, subject)
        .command("resolve")
        .description(
          `decide an undecided ${subject}'s payout: paid or failed, with the reason and the bank's reference`,
        ),
    )
      .argument("<id>", `${subject} id`)
      .requiredOption("--outcome <outcome>", "paid or failed", outcomeOption)
      .requiredOption("--reason <text>", "why: what the bank's statement, inquiry or support said")
      .option("--bank-reference <ref>", "the bank's reference of the transfer")
      .action(async (id: string, flags: ResolveFlags) => {
        const body: Record<string, string> = { outcome: flags.outcome, reason: flags.reason };
        if (flags.bankReference !== undefined) body.bankReference = flags.bankReference;
        const data = await adminClient(flags, io.env).call<Record<string, { id: string; status: string }>>(
          "POST",
          `/${subject}s/${encodeURIComponent(id)}/resolve`,
          body,
        );
        const record = data[subject];
        const name = subject === "withdraw" ? "Withdraw" : "Refund";
        printResult(io, flags, data, () => `${name} ${record?.id} is now ${record?.status}`);
      });
  }
}
