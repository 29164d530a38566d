/**
 * A real Satang server for the SDK's tests: the server's own test harness (a real database,
 * PGlite or PostgreSQL) listening on a random loopback port, so the SDK talks to it over HTTP
 * with the global fetch exactly as a merchant's backend would.
 */
import type { AddressInfo } from "node:net";
import {
  type Credentials,
  startService,
  type TestService,
} from "../../../../apps/server/test/helpers/harness.ts";
import { Satang, type SatangConfig } from "../../src/index.ts";

export interface ListeningService {
  svc: TestService;
  baseUrl: string;
  /** A client for the default merchant, or for `credentials`. */
  client(options?: Partial<SatangConfig>, credentials?: Credentials): Satang;
  close(): Promise<void>;
}

export async function listeningService(
  options: Parameters<typeof startService>[0] = {},
): Promise<ListeningService> {
  const svc = await startService(options);
  await svc.app.listen({ host: "127.0.0.1", port: 0 });
  const baseUrl = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  return {
    svc,
    baseUrl,
    client: (opts = {}, credentials = svc.credentials) =>
      new Satang({ apiKey: credentials.apiKey, apiSecret: credentials.apiSecret, baseUrl, ...opts }),
    close: () => svc.close(),
  };
}

/** The customer fields every create needs; a distinct account number keeps PromptPay reuse out of the way. */
export function customer(accountNumber = randomAccountNumber()) {
  return {
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: accountNumber,
    customerBankCode: "004",
  };
}

export function randomAccountNumber(): string {
  return String(Math.floor(1e9 + Math.random() * 8.9e9));
}

let sequence = 0;
/** A referenceId unique within the run. */
export function ref(prefix = "sdk"): string {
  sequence += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${sequence}`;
}
