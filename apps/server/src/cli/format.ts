/**
 * Friendly summaries of operator records for a terminal. `--json` bypasses all of this and
 * prints the API's data object as it is, for scripts.
 */
import { findBank } from "../lib/bank-codes.ts";
import { describeSatang, formatThb, parseAmount } from "../lib/money.ts";

type Row = [label: string, value: string];

function table(title: string, rows: Row[]): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  return [title, ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`)].join("\n");
}

/** Wire amounts are satang; operators think in baht, so both are shown. */
function amount(value: unknown, none = "none"): string {
  if (value === null || value === undefined) return none;
  const satang = parseAmount(value);
  return satang === null ? String(value) : `${String(value)} satang (${formatThb(satang)} THB)`;
}

/** A balance of the wallet: satang as a JSON number, shown with its THB. */
function balance(value: unknown): string {
  return typeof value === "number" && Number.isSafeInteger(value)
    ? describeSatang(BigInt(value))
    : "not read";
}

function text(value: unknown, none = "none"): string {
  return value === null || value === undefined || value === "" ? none : String(value);
}

export function formatMerchant(merchant: Record<string, unknown>): string {
  const account = merchant.collectionAccount as
    | { bankCode: string; accountNumber: string; accountName: string }
    | null
    | undefined;
  const bank = account ? findBank(account.bankCode) : undefined;
  const rows: Row[] = [
    ["status", text(merchant.status)],
    ["wallet", text(merchant.walletStatus)],
    ...walletRows(merchant.wallet),
    [
      "promptpay id",
      merchant.promptpayId
        ? `${String(merchant.promptpayId)} (reuse of open payments ${merchant.promptpayReuse ? "on" : "off"})`
        : "none",
    ],
    [
      "collection account",
      account
        ? `${account.bankCode}${bank ? ` ${bank.shortName}` : ""} ${account.accountNumber} (${account.accountName})`
        : "none",
    ],
    ["settlement delay", `${text(merchant.settlementDelayHours)} h`],
    ["daily limit", amount(merchant.dailyWithdrawLimit)],
    ["monthly limit", amount(merchant.monthlyWithdrawLimit)],
    ["verify withdraws from", amount(merchant.withdrawVerificationThreshold)],
    ["provider", merchant.provider ? `${String(merchant.provider)} (pinned)` : "SATANG_PROVIDER's order"],
    ["created", text(merchant.createdAt)],
    ["updated", text(merchant.updatedAt)],
  ];
  return table(`Merchant ${text(merchant.id)} "${text(merchant.name)}"`, rows);
}

/**
 * The wallet's balances when the answer carries them (the operator's retrieve does, CONTRACT 2;
 * a create or update does not): what can be withdrawn now and what awaits settlement.
 */
function walletRows(wallet: unknown): Row[] {
  if (typeof wallet !== "object" || wallet === null) return [];
  const { walletBalance, settlementBalance } = wallet as Record<string, unknown>;
  return [
    ["available", balance(walletBalance)],
    ["awaiting settlement", balance(settlementBalance)],
  ];
}

export function formatCreatedIntegration(integration: Record<string, unknown>): string {
  const rows: Row[] = [
    ["merchant", text(integration.merchantId)],
    ["name", text(integration.name)],
    ["environment", text(integration.environment)],
    ["redirect URL", text(integration.redirectUrl)],
    ["signature", integration.requireSignatureV2 ? "v2 required" : "v1 or v2"],
    ["API key", text(integration.apiKey)],
    ["API secret", text(integration.apiSecret)],
  ];
  return [
    table(`Integration ${text(integration.id)} created`, rows),
    "",
    "The API secret is shown once: store it now. It cannot be retrieved later; if it is lost,",
    "revoke this integration and create another.",
  ].join("\n");
}

export function formatIntegration(integration: Record<string, unknown>): string {
  const rows: Row[] = [
    ["merchant", text(integration.merchantId)],
    ["name", text(integration.name)],
    ["environment", text(integration.environment)],
    ["API key", text(integration.apiKey)],
    ["redirect URL", text(integration.redirectUrl)],
    ["signature", integration.requireSignatureV2 ? "v2 required" : "v1 or v2"],
    ["created", text(integration.createdAt)],
    ["revoked", text(integration.revokedAt, "no")],
  ];
  return table(`Integration ${text(integration.id)}`, rows);
}

export function formatIntegrationList(list: {
  data: Record<string, unknown>[];
  total: number;
  page: number;
  totalPages: number;
}): string {
  if (list.data.length === 0) return list.total === 0 ? "No integrations." : "No integrations on this page.";
  const lines = list.data.map(
    (i) =>
      `${text(i.id)}  ${text(i.apiKey).padEnd(34)}  ${i.revokedAt ? `revoked ${String(i.revokedAt)}` : "active"}  ${text(i.name, "")}`,
  );
  return [...lines, `(page ${list.page} of ${Math.max(list.totalPages, 1)}, ${list.total} in all)`].join(
    "\n",
  );
}

/** The labels and fields of the provider references an exchange names (a connector's own). */
type ReferenceFields = readonly (readonly [label: string, field: string])[];

/** One provider exchange on one line: when, which way, what, what came back, what it names. */
function exchangeLine(e: Record<string, unknown>, referenceFields: ReferenceFields): string {
  const answer =
    e.responseStatus === null || e.responseStatus === undefined
      ? `no answer (${text(e.error, "unknown")})`
      : `${String(e.responseStatus)}${e.error ? ` (${String(e.error)})` : ""}`;
  const references = referenceFields
    .map(([label, field]) => [label, e[field]] as const)
    .filter(([, value]) => typeof value === "string" && value !== "")
    .map(([label, value]) => `${label} ${String(value)}`);
  return [
    `#${text(e.id)}`,
    text(e.startedAt),
    text(e.direction).padEnd(8),
    text(e.operation).padEnd(20),
    `${text(e.method)} ${text(e.path)}`,
    `-> ${answer}`,
    `${text(e.durationMs, "?")} ms`,
    ...references,
  ].join("  ");
}

/** A page of provider exchanges; `noun` names them when there are none ("No ... exchanges."). */
export function formatExchangeList(
  list: { data: Record<string, unknown>[]; total: number; page: number; totalPages: number },
  shape: { noun: string; references: ReferenceFields },
): string {
  if (list.data.length === 0)
    return list.total === 0 ? `No ${shape.noun}.` : `No ${shape.noun} on this page.`;
  return [
    ...list.data.map((e) => exchangeLine(e, shape.references)),
    `(page ${list.page} of ${Math.max(list.totalPages, 1)}, ${list.total} in all)`,
  ].join("\n");
}

const pretty = (value: unknown): string =>
  value === null || value === undefined ? "none" : JSON.stringify(value, null, 2);

/** One exchange in full: its line, the ids it names, then its headers and bodies as recorded. */
export function formatExchange(
  e: Record<string, unknown>,
  shape: { references: ReferenceFields; details: ReferenceFields },
): string {
  const rows: Row[] = shape.details.map(([label, field]) => [label, text(e[field])]);
  return [
    exchangeLine(e, shape.references),
    table("", rows).slice(1),
    `request headers: ${pretty(e.requestHeaders)}`,
    `request body: ${pretty(e.requestBody)}`,
    `response body: ${pretty(e.responseBody)}`,
  ].join("\n");
}

/** A payment the operator found by the reference a provider shows for it, under that label. */
export function formatProviderPayment(
  payment: Record<string, unknown>,
  reference: { label: string; field: string },
): string {
  const rows: Row[] = [
    ["merchant", text(payment.merchantId)],
    [reference.label, text(payment[reference.field])],
    ["status", text(payment.status)],
    ["amount", amount(payment.amount)],
    ["method", text(payment.paymentMethod)],
    ["reference id", text(payment.referenceId)],
    ["confirmed", text(payment.confirmedAt)],
    ["expires", text(payment.expiresAt)],
    ["created", text(payment.createdAt)],
    ["updated", text(payment.updatedAt)],
  ];
  return table(`Payment ${text(payment.id)}`, rows);
}

interface ReportFigure {
  count: number;
  amountThb: string;
}

export interface DailyReportData {
  date: string;
  paidIn: ReportFigure;
  credited: ReportFigure;
  unmatched: ReportFigure;
  paidOut: ReportFigure;
  undecided: ReportFigure;
  sweep: { status: string; asked: number; found: number };
}

/** The operator's daily report as lines a person reads: figure, count, amount in THB. */
export function formatDailyReport(report: DailyReportData): string {
  const rows: [string, ReportFigure][] = [
    ["paid in", report.paidIn],
    ["credited", report.credited],
    ["unmatched", report.unmatched],
    ["paid out", report.paidOut],
    ["undecided", report.undecided],
  ];
  const lines = [`${report.date} (Asia/Bangkok), amounts in THB`];
  for (const [name, figure] of rows)
    lines.push(
      `${name.padEnd(10)} ${String(figure.count).padStart(6)}  ${figure.amountThb.padStart(16)} THB`,
    );
  lines.push(
    `sweep      ${report.sweep.status} (${report.sweep.asked} references asked, ${report.sweep.found} found)`,
  );
  return lines.join("\n");
}

export interface PaymentSearchPage {
  data: Record<string, unknown>[];
  total: number;
  page: number;
  totalPages: number;
}

/** The operator's search by merchant reference: one line per payment, its amount in THB. */
export function formatPaymentSearch(found: PaymentSearchPage, reference: string): string {
  if (found.total === 0) return `No payment has the merchant reference ${reference}`;
  const lines = found.data.map((payment) =>
    [
      text(payment.id),
      `merchant ${text(payment.merchantId)}`,
      text(payment.status),
      amount(payment.amount),
      `reference ${text(payment.referenceId)}`,
      `created ${text(payment.createdAt)}`,
    ].join("  "),
  );
  const of = found.totalPages > 1 ? ` (page ${found.page} of ${found.totalPages})` : "";
  return [`${found.total} payment(s) with the merchant reference ${reference}${of}:`, ...lines].join("\n");
}
