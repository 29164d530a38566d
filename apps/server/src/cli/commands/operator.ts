/**
 * `satang operator-token create|list|revoke` (named operator tokens) and `satang audit list`
 * (the audit log), through the operator API (CONTRACT 2).
 */
import type { Command } from "commander";
import { adminClient } from "../client.ts";
import type { CommandContext } from "../io.ts";
import { clientFlags, type OutputOptions, printResult, wholeNumber } from "../options.ts";

interface Page {
  data: Record<string, unknown>[];
  total: number;
  page: number;
  totalPages: number;
}

interface PageFlags extends OutputOptions {
  page?: number;
  limit?: number;
}

interface AuditFlags extends PageFlags {
  merchant?: string;
  actor?: string;
  action?: string;
  record?: string;
  from?: string;
  to?: string;
}

const text = (value: unknown, fallback = "-") =>
  value === null || value === undefined || value === "" ? fallback : String(value);

function pageFooter(list: Page, empty: string): string[] {
  if (list.data.length === 0) return [list.total === 0 ? empty : "Nothing on this page."];
  return [`(page ${list.page} of ${Math.max(list.totalPages, 1)}, ${list.total} in all)`];
}

function formatTokenList(list: Page): string {
  const lines = list.data.map(
    (t) =>
      `${text(t.id)}  ${text(t.tokenPrefix).padEnd(12)}  ${t.revokedAt ? `revoked ${text(t.revokedAt)}` : "active"}  ${text(t.name)}`,
  );
  return [...lines, ...pageFooter(list, "No operator tokens.")].join("\n");
}

function formatAuditList(list: Page): string {
  const lines = list.data.map((e) =>
    [
      text(e.createdAt),
      `${text(e.actorName)} (${text(e.via)})`,
      text(e.action),
      `${text(e.recordType)} ${text(e.recordId)}`,
      `from ${text(e.clientAddress)}`,
      `request ${text(e.requestId)}`,
    ].join("  "),
  );
  return [...lines, ...pageFooter(list, "No audit entries.")].join("\n");
}

function pageQuery(flags: PageFlags, extra: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  if (flags.page !== undefined) query.set("page", String(flags.page));
  if (flags.limit !== undefined) query.set("limit", String(flags.limit));
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) query.set(key, value);
  return query.size > 0 ? `?${query.toString()}` : "";
}

function registerTokenCommands(program: Command, { io }: CommandContext): void {
  const tokens = program.command("operator-token").description("named operator tokens: create, list, revoke");
  clientFlags(tokens.command("create").description("create a named operator token (shown only once)"))
    .argument("<name>", "who or what uses it, as the audit log will show it")
    .action(async (name: string, flags: OutputOptions) => {
      const data = await adminClient(flags, io.env).call<Record<string, unknown>>(
        "POST",
        "/operator-tokens",
        { name },
      );
      printResult(io, flags, data, () =>
        [
          `Created operator token ${text(data.name)} (${text(data.id)}).`,
          `Token: ${text(data.token)}`,
          "Store it now: it is not shown again. Use it as ADMIN_TOKEN (or --token) to act under this name.",
        ].join("\n"),
      );
    });
  clientFlags(tokens.command("list").description("list operator tokens, never their secrets"))
    .option("--page <n>", "page number", wholeNumber)
    .option("--limit <n>", "page size (1-100)", wholeNumber)
    .action(async (flags: PageFlags) => {
      const data = await adminClient(flags, io.env).call<Page>("GET", `/operator-tokens${pageQuery(flags)}`);
      printResult(io, flags, data, () => formatTokenList(data));
    });
  clientFlags(tokens.command("revoke").description("revoke an operator token: it stops working at once"))
    .argument("<id>", "operator token id")
    .action(async (id: string, flags: OutputOptions) => {
      const path = `/operator-tokens/${encodeURIComponent(id)}/revoke`;
      const data = await adminClient(flags, io.env).call<Record<string, unknown>>("POST", path, {});
      printResult(
        io,
        flags,
        data,
        () => `Revoked operator token ${text(data.name)} at ${text(data.revokedAt)}.`,
      );
    });
}

function registerAuditCommand(program: Command, { io }: CommandContext): void {
  const audit = program.command("audit").description("the audit log: who did what, from where, when");
  clientFlags(audit.command("list").description("list audit entries, newest first"))
    .option("--merchant <id>", "entries about this merchant's records")
    .option("--actor <name>", "an operator token's name, admin-token, or a dashboard user's email")
    .option("--action <action>", "an action, such as recordPayoutOutcome")
    .option("--record <id>", "entries about this record")
    .option("--from <date>", "created at or after (ISO 8601)")
    .option("--to <date>", "created before (ISO 8601)")
    .option("--page <n>", "page number", wholeNumber)
    .option("--limit <n>", "page size (1-100)", wholeNumber)
    .action(async (flags: AuditFlags) => {
      const query = pageQuery(flags, {
        merchantId: flags.merchant,
        actor: flags.actor,
        action: flags.action,
        recordId: flags.record,
        dateFrom: flags.from,
        dateTo: flags.to,
      });
      const data = await adminClient(flags, io.env).call<Page>("GET", `/audit-log${query}`);
      printResult(io, flags, data, () => formatAuditList(data));
    });
}

/** Adds `operator-token create|list|revoke` and `audit list` to the program. */
export function registerOperatorCommands(program: Command, context: CommandContext): void {
  registerTokenCommands(program, context);
  registerAuditCommand(program, context);
}
