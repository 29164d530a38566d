/**
 * The bounds on CSV exports (CONTRACT 11 and 14 isolation; reports/export-gate.ts): at most
 * EXPORTS_PER_MERCHANT_MAX exports of one merchant at once (429) and EXPORTS_OPEN_MAX of all
 * merchants (503), both with Retry-After in the envelope; the API's and the dashboard's routes
 * share the count; a flood of one merchant's exports over real connections leaves another
 * merchant's balance and /healthz answered while the admitted exports are still streaming.
 */
import assert from "node:assert/strict";
import { request as httpRequest, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { nextTimestamp, signRequest } from "@satang/sdk";
import { EXPORT_RETRY_AFTER_S, EXPORTS_OPEN_MAX, EXPORTS_PER_MERCHANT_MAX } from "../../src/lib/limits.ts";
import { type ExportSlot, exportGateOf } from "../../src/reports/export-gate.ts";
import { insertBulkPayments } from "../helpers/bulk-payments.ts";
import { csvRecords } from "../helpers/csv.ts";
import { dashboardUser } from "../helpers/dashboard.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";

const ROWS = 3_000;
const AT = new Date(Date.UTC(2025, 0, 1));
const YEAR = `dateFrom=2025-01-01&dateTo=2026-01-01`;
const PAYMENTS_CSV = `/api/v1/reports/payments.csv?${YEAR}`;

let svc: TestService;
let shopA: Credentials;
let shopB: Credentials;
let port: number;
const gate = () => exportGateOf(svc.deps);

before(async () => {
  svc = await startService();
  shopA = await svc.newMerchant();
  shopB = await svc.newMerchant();
  await insertBulkPayments(svc.deps.db, shopA, ROWS, AT);
  await insertBulkPayments(svc.deps.db, shopB, 10, AT);
  await svc.app.listen({ port: 0, host: "127.0.0.1" });
  port = (svc.app.server.address() as AddressInfo).port;
});

after(async () => {
  await svc?.close();
});

// Each test starts with no export open (the one before may have just finished streaming).
beforeEach(() => drained());

/** Holds `count` places of `merchantId` in the gate, as exports streaming to slow clients would. */
function hold(merchantId: string, count: number): ExportSlot[] {
  return Array.from({ length: count }, () => gate().open(merchantId, svc.deps.wallClock));
}

/**
 * Waits until no more than `count` exports are open: a stream gives its place back when it
 * closes, a moment after its client has read the last byte.
 */
async function drained(count = 0): Promise<void> {
  for (let i = 0; i < 300 && gate().openCount() > count; i++) await sleep(10);
  assert.equal(gate().openCount(), count, "open exports");
}

function assertRefused(res: { status: number; headers: Record<string, unknown>; body: any }, status: number) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.headers["retry-after"], String(EXPORT_RETRY_AFTER_S));
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, status === 429 ? "RATE_LIMIT_EXCEEDED" : "SERVICE_UNAVAILABLE");
  assert.equal(res.body.error.metadata.retryAfter, EXPORT_RETRY_AFTER_S);
}

describe("the bound per merchant", () => {
  it("admits a merchant's export while it has one streaming, and refuses it with 429 at two", async () => {
    const one = hold(shopA.merchantId, EXPORTS_PER_MERCHANT_MAX - 1);
    const admitted = await svc.request("GET", PAYMENTS_CSV, undefined, { credentials: shopA });
    assert.equal(admitted.status, 200);
    assert.equal(csvRecords(String(admitted.body)).length, ROWS);
    await drained(one.length);
    const full = [...one, ...hold(shopA.merchantId, 1)];
    const refused = await svc.request("GET", PAYMENTS_CSV, undefined, { credentials: shopA });
    assertRefused(refused, 429);
    assert.equal(refused.body.error.metadata.limit, EXPORTS_PER_MERCHANT_MAX);
    assert.equal(refused.body.error.metadata.remaining, 0);
    for (const kind of ["withdraws", "ledger"]) {
      const other = await svc.request("GET", `/api/v1/reports/${kind}.csv?${YEAR}`, undefined, {
        credentials: shopA,
      });
      assertRefused(other, 429);
    }
    const fromB = await svc.request("GET", PAYMENTS_CSV, undefined, { credentials: shopB });
    assert.equal(fromB.status, 200, "another merchant's export is admitted");
    for (const slot of full) slot.close();
    await drained();
    const again = await svc.request("GET", PAYMENTS_CSV, undefined, { credentials: shopA });
    assert.equal(again.status, 200, "the places come back when the exports close");
  });

  it("counts the dashboard's exports with the API's", async () => {
    const user = await dashboardUser(svc, shopA.merchantId);
    const slots = hold(shopA.merchantId, EXPORTS_PER_MERCHANT_MAX);
    try {
      assertRefused(await user.request("GET", `/reports/payments.csv?${YEAR}`), 429);
    } finally {
      for (const slot of slots) slot.close();
    }
    const admitted = await user.request("GET", `/reports/payments.csv?${YEAR}`);
    assert.equal(admitted.status, 200);
    await drained();
  });

  it("checks the query before the bound: a bad range is 400 even when the merchant is at its bound", async () => {
    const slots = hold(shopA.merchantId, EXPORTS_PER_MERCHANT_MAX);
    try {
      const res = await svc.request("GET", "/api/v1/reports/payments.csv?dateFrom=2025-01-01", undefined, {
        credentials: shopA,
      });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.error.metadata, { field: "dateTo" });
    } finally {
      for (const slot of slots) slot.close();
    }
  });
});

describe("the bound of all merchants", () => {
  it("admits the eighth export at once and refuses the ninth with 503 and Retry-After", async () => {
    const others = Array.from({ length: EXPORTS_OPEN_MAX }, (_, i) => `merchant-${i}`);
    const slots = others.slice(0, EXPORTS_OPEN_MAX - 1).flatMap((id) => hold(id, 1));
    const eighth = await svc.request("GET", PAYMENTS_CSV, undefined, { credentials: shopB });
    assert.equal(eighth.status, 200);
    await drained(slots.length);
    slots.push(...hold(others.at(-1)!, 1));
    try {
      const ninth = await svc.request("GET", PAYMENTS_CSV, undefined, { credentials: shopB });
      assertRefused(ninth, 503);
      assert.equal(ninth.body.error.metadata.reason, "busy");
    } finally {
      for (const slot of slots) slot.close();
    }
    assert.equal((await svc.request("GET", PAYMENTS_CSV, undefined, { credentials: shopB })).status, 200);
  });
});

interface Answer {
  status: number;
  headers: IncomingMessage["headers"];
  res: IncomingMessage;
}

/** A signed GET over its own connection; resolves at the response's headers, body unread. */
function signedGet(credentials: Credentials, path: string): Promise<Answer> {
  const headers = signRequest({
    apiKey: credentials.apiKey,
    apiSecret: credentials.apiSecret,
    body: "",
    method: "GET",
    path,
    version: "v2",
    timestamp: nextTimestamp(),
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method: "GET", headers, agent: false }, (res) =>
      resolve({ status: res.statusCode ?? 0, headers: res.headers, res }),
    );
    req.on("error", reject);
    req.end();
  });
}

async function bodyOf(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

describe("a flood of one merchant's exports", () => {
  const FLOOD = 60;

  it("refuses the excess with 429 and serves another merchant's balance and /healthz while the rest stream", async () => {
    gate().takePeaks();
    const answers = await Promise.all(Array.from({ length: FLOOD }, () => signedGet(shopA, PAYMENTS_CSV)));
    // The admitted exports are still streaming: their clients have not read a byte of the body.
    const streaming = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    const [balance, health] = await Promise.all([
      signedGet(shopB, "/api/v1/balance"),
      fetch(`http://127.0.0.1:${port}/healthz`),
    ]);
    assert.equal(balance.status, 200);
    assert.equal(JSON.parse(await bodyOf(balance.res)).success, true);
    assert.equal(health.status, 200);
    assert.ok(
      streaming.every((a) => !a.res.complete),
      "B was answered while every admitted export was still being delivered",
    );

    // Admitted exports that finished gave their place to later requests of the flood; at no
    // moment were more than the bound streaming.
    assert.ok(streaming.length >= 1, "some exports are admitted");
    assert.ok(refused.length >= 1, "the excess is refused");
    for (const answer of refused) {
      assertRefused({ ...answer, body: JSON.parse(await bodyOf(answer.res)) }, 429);
    }
    const bodies = await Promise.all(streaming.map((a) => bodyOf(a.res)));
    for (const body of bodies) assert.equal(csvRecords(body).length, ROWS);
    assert.equal(new Set(bodies).size, 1, "every admitted export is the whole file");
    await drained();
    assert.deepEqual(
      gate().takePeaks(),
      { open: EXPORTS_PER_MERCHANT_MAX, reads: 1 },
      "never more than the merchant's bound streaming, one batch read at a time",
    );
  });

  it("gives the place back when the client goes away mid-export", async () => {
    const answers = await Promise.all(
      Array.from({ length: EXPORTS_PER_MERCHANT_MAX }, () => signedGet(shopA, PAYMENTS_CSV)),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      answers.map(() => 200),
    );
    for (const answer of answers) answer.res.destroy();
    await drained();
    const next = await signedGet(shopA, PAYMENTS_CSV);
    assert.equal(next.status, 200);
    assert.equal(csvRecords(await bodyOf(next.res)).length, ROWS);
  });
});
