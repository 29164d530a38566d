/**
 * Profiles the service under one benchmark load: starts bench/server.ts with --cpu-prof,
 * creates payments, then drives the list (or create) endpoint, and leaves a .cpuprofile in
 * PROFILE_DIR (default /tmp/satang-profile) to open in Chrome DevTools.
 *
 *   node --import tsx bench/profile.ts list|create
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { signRequest } from "@satang/sdk";
import autocannon from "autocannon";

const target = process.argv[2] ?? "list";
const dir = process.env.PROFILE_DIR ?? "/tmp/satang-profile";
const here = fileURLToPath(new URL(".", import.meta.url));
const child = spawn(
  process.execPath,
  ["--cpu-prof", `--cpu-prof-dir=${dir}`, "--import", "tsx", `${here}server.ts`, "satang"],
  { stdio: ["ignore", "pipe", "inherit"], env: process.env },
);
let buffer = "";
for await (const chunk of child.stdout!) {
  buffer += chunk;
  if (buffer.includes("\n")) break;
}
const info = JSON.parse(buffer.split("\n")[0]!) as { port: number; apiKey: string; apiSecret: string };
let n = 0;
const create = {
  method: "POST" as const,
  path: "/api/v1/payments",
  setupRequest: (request: autocannon.Request) => {
    n += 1;
    const body = JSON.stringify({
      amount: "10000.00",
      referenceId: `profile-${n}`,
      paymentMethod: "promptpay",
      customerBankAccountName: "Somchai Jaidee",
      customerBankAccountNumber: "1234567890",
      customerBankCode: "004",
    });
    return {
      ...request,
      body,
      headers: {
        "content-type": "application/json",
        ...signRequest({ ...info, body, method: "POST", path: "/api/v1/payments" }),
      },
    };
  },
};
const list = {
  method: "GET" as const,
  path: "/api/v1/payments?limit=10",
  setupRequest: (request: autocannon.Request) => ({
    ...request,
    headers: signRequest({ ...info, body: "", method: "GET", path: "/api/v1/payments?limit=10" }),
  }),
};
const url = `http://127.0.0.1:${info.port}`;
await autocannon({ url, connections: 10, amount: 2000, requests: [create] });
const result = await autocannon({
  url,
  connections: 20,
  duration: 6,
  requests: [target === "list" ? list : create],
});
console.log(`${target}: ${Math.round(result.requests.average)} req/s; profile in ${dir}`);
child.kill("SIGTERM");
await new Promise((resolve) => child.on("exit", resolve));
