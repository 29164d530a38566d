/**
 * `satang user create`: a dashboard user for a merchant (POST /admin/v1/merchants/{id}/users).
 * Kept in its own file and added to the program by cli/program.ts; it follows the conventions
 * there: the same --url/--token/--json flags, the admin client, and errors left to the
 * program's reporter so exit codes mean what they mean for every other command.
 */
import type { Command } from "commander";
import { adminClient, type ClientOptions } from "./client.ts";
import type { CliIo } from "./program.ts";

interface UserCreateFlags extends ClientOptions {
  merchant: string;
  email: string;
  password: string;
  json?: boolean;
}

export function addUserCommands(program: Command, io: CliIo): void {
  const user = program.command("user").description("dashboard users of a merchant");
  user
    .command("create")
    .description("create a dashboard user: they log in at /dashboard with this email and password")
    .requiredOption("--merchant <id>", "merchant id")
    .requiredOption("--email <email>", "login email, unique across the service (any case)")
    .requiredOption("--password <password>", "at least 12 characters; stored only as an argon2id hash")
    .option("--url <url>", "server address (default: SATANG_URL, else http://HOST:PORT)")
    .option("--token <token>", "admin token (default: ADMIN_TOKEN, else DATA_DIR/admin-token)")
    .option("--json", "print the machine-readable data object")
    .action(async (flags: UserCreateFlags) => {
      const data = await adminClient(flags, io.env).call<Record<string, unknown>>(
        "POST",
        `/merchants/${encodeURIComponent(flags.merchant)}/users`,
        { email: flags.email, password: flags.password },
      );
      io.stdout(
        flags.json
          ? `${JSON.stringify(data, null, 2)}\n`
          : `Created dashboard user ${String(data.email)} (${String(data.id)}) for merchant ${String(data.merchantId)}.\n` +
              "They can log in at /dashboard now.\n",
      );
    });
}
