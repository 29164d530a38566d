/**
 * `satang user create`: a dashboard user for a merchant (POST /admin/v1/merchants/{id}/users).
 * `satang user reset-two-factor`: removes a user's authenticator when it is lost
 * (POST /admin/v1/users/{id}/two-factor/reset; docs/security.md).
 */
import { type Command, InvalidArgumentError } from "commander";
import { DASHBOARD_ROLES } from "../../dashboard/schemas.ts";
import { adminClient } from "../client.ts";
import type { CommandContext } from "../io.ts";
import { clientFlags, type OutputOptions, printResult } from "../options.ts";

interface UserCreateFlags extends OutputOptions {
  merchant: string;
  email: string;
  password: string;
  role?: string;
}

/** A role the service knows, or a usage error (exit 2) before anything is sent. */
function roleOption(value: string): string {
  if (!(DASHBOARD_ROLES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${DASHBOARD_ROLES.join(", ")}`);
  return value;
}

/** Adds `user create|reset-two-factor` to the program. */
export function registerUserCommands(program: Command, { io }: CommandContext): void {
  const user = program.command("user").description("dashboard users of a merchant");
  const create = user
    .command("create")
    .description("create a dashboard user: they log in at /dashboard with this email and password")
    .requiredOption("--merchant <id>", "merchant id")
    .requiredOption("--email <email>", "login email, unique across the service (any case)")
    .requiredOption("--password <password>", "at least 12 characters; stored only as an argon2id hash")
    .option(
      "--role <role>",
      "owner (default: everything, users included), developer or finance (reads and exports)",
      roleOption,
    );
  clientFlags(create).action(async (flags: UserCreateFlags) => {
    const data = await adminClient(flags, io.env).call<Record<string, unknown>>(
      "POST",
      `/merchants/${encodeURIComponent(flags.merchant)}/users`,
      {
        email: flags.email,
        password: flags.password,
        ...(flags.role === undefined ? {} : { role: flags.role }),
      },
    );
    printResult(
      io,
      flags,
      data,
      () =>
        `Created dashboard user ${String(data.email)} (${String(data.id)}, ${String(data.role)}) for merchant ${String(data.merchantId)}.\n` +
        "They can log in at /dashboard now.",
    );
  });
  const reset = user
    .command("reset-two-factor")
    .description(
      "remove a user's authenticator (lost device): the next login needs only the password, then they enrol again; their sessions end",
    )
    .argument("<id>", "dashboard user id");
  clientFlags(reset).action(async (id: string, flags: OutputOptions) => {
    const path = `/users/${encodeURIComponent(id)}/two-factor/reset`;
    const data = await adminClient(flags, io.env).call<Record<string, unknown>>("POST", path, {});
    printResult(
      io,
      flags,
      data,
      () =>
        `Two-factor login of ${String(data.email)} (${String(data.id)}) is reset: no authenticator is enrolled now and their sessions have ended; they sign in with the password alone, then enrol again.`,
    );
  });
}
