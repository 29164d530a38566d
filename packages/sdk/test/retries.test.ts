/**
 * Retries: a fake fetch in front of a real server fails some attempts (before or after the
 * server did the work) and records what each attempt sent.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  ConnectionError,
  type FetchLike,
  InternalError,
  parseRetryAfter,
  RateLimitError,
  Satang,
  type SatangConfig,
  ServiceUnavailableError,
  UnexpectedResponseError,
  ValidationError,
} from "../src/index.ts";
import { customer, type ListeningService, listeningService, ref } from "./helpers/server.ts";

let service: ListeningService;
before(async () => {
  service = await listeningService();
});
after(async () => {
  await service?.close();
});

interface Attempt {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

type Step =
  | "pass"
  | "503-before"
  | "408-before"
  | "302-before"
  | "reset-before"
  | "refused"
  | "reset-after"
  | "500-after"
  | "page-200-after"
  | "page-403-after"
  | "page-429-after";

/**
 * A fetch that plays `steps` in order (then passes every request through to the real server):
 * "-before" fails without sending, "-after" sends to the server and then loses or replaces the
 * answer, "refused" is a connection refused.
 */
function scripted(steps: Step[]) {
  const attempts: Attempt[] = [];
  const fetch: FetchLike = async (url, init) => {
    const headers = { ...(init.headers as Record<string, string>) };
    attempts.push({ method: init.method ?? "GET", url, headers, body: init.body as string | undefined });
    const step = steps.shift() ?? "pass";
    const lost = (code: string) =>
      new TypeError("fetch failed", { cause: Object.assign(new Error(`socket ${code}`), { code }) });
    if (step === "503-before") {
      return new Response(
        JSON.stringify({ success: false, error: { code: "SERVICE_UNAVAILABLE", message: "busy" } }),
        {
          status: 503,
        },
      );
    }
    if (step === "408-before") {
      return new Response(
        JSON.stringify({
          success: false,
          error: { code: "REQUEST_TIMEOUT", message: "The request was not received in time" },
        }),
        { status: 408 },
      );
    }
    if (step === "302-before") {
      return new Response(null, { status: 302, headers: { location: "https://elsewhere.example/api" } });
    }
    if (step === "reset-before") throw lost("ECONNRESET");
    if (step === "refused") throw lost("ECONNREFUSED");
    const response = await globalThis.fetch(url, init);
    if (step === "reset-after") {
      await response.arrayBuffer();
      throw lost("ECONNRESET");
    }
    if (step === "500-after") {
      await response.arrayBuffer();
      return new Response(
        JSON.stringify({ success: false, error: { code: "INTERNAL_ERROR", message: "oops" } }),
        {
          status: 500,
        },
      );
    }
    const page = /^page-(\d+)-after$/.exec(step);
    if (page) {
      // Something in front of the server (a proxy, a firewall) passed the request on, then
      // answered with a page of its own instead of the server's answer.
      await response.arrayBuffer();
      return new Response("<html>blocked</html>", {
        status: Number(page[1]),
        headers: { "content-type": "text/html" },
      });
    }
    return response;
  };
  return { fetch, attempts };
}

function clientWith(fetch: FetchLike, options: Partial<SatangConfig> = {}) {
  const waits: number[] = [];
  const client = service.client({
    fetch,
    sleep: async (ms) => void waits.push(ms),
    ...options,
  });
  return { client, waits };
}

/** The error a create that must fail rejects with. */
function failedCreate(client: Satang, params: Parameters<Satang["payments"]["create"]>[0]): Promise<unknown> {
  return client.payments.create(params).then(
    () => assert.fail("the create should fail"),
    (caught: unknown) => caught,
  );
}

const paymentParams = () => ({
  amount: "2500.00",
  referenceId: ref("retry"),
  paymentMethod: "promptpay" as const,
  ...customer(),
});

async function paymentsWithReference(referenceId: string): Promise<number> {
  const all = await service.client().payments.list({ limit: 100 });
  return all.data.filter((p) => p.referenceId === referenceId).length;
}

function assertFreshSignatures(attempts: Attempt[]) {
  const timestamps = attempts.map((a) => Number(a.headers["X-Timestamp"]));
  for (let i = 1; i < timestamps.length; i += 1) {
    assert.ok(timestamps[i]! > timestamps[i - 1]!, "each attempt has a later timestamp");
  }
  const signatures = new Set(attempts.map((a) => a.headers["X-Signature"]));
  assert.equal(signatures.size, attempts.length, "each attempt has its own signature");
}

describe("retries of a create", () => {
  it("retries two 503s and creates one payment; same body and idempotency key, new signature each time", async () => {
    const { fetch, attempts } = scripted(["503-before", "503-before"]);
    const { client, waits } = clientWith(fetch);
    const params = paymentParams();
    const payment = await client.payments.create(params);
    assert.equal(attempts.length, 3);
    assert.equal(waits.length, 2);
    const keys = attempts.map((a) => JSON.parse(a.body!).idempotencyKey);
    assert.match(keys[0], /^[0-9a-f-]{36}$/);
    assert.deepEqual(keys, [keys[0], keys[0], keys[0]]);
    assert.equal(new Set(attempts.map((a) => a.body)).size, 1, "the body is byte for byte the same");
    assertFreshSignatures(attempts);
    assert.equal(await paymentsWithReference(params.referenceId), 1);
    assert.equal(payment.referenceId, params.referenceId);
  });

  it("retries network errors after the server created the payment, and gets the same payment back", async () => {
    const { fetch, attempts } = scripted(["reset-after", "500-after"]);
    const { client } = clientWith(fetch);
    const params = paymentParams();
    const payment = await client.payments.create(params);
    assert.equal(attempts.length, 3);
    assertFreshSignatures(attempts);
    assert.equal(await paymentsWithReference(params.referenceId), 1, "one payment despite three sends");
    assert.equal((await service.client().payments.retrieveByReference(params.referenceId)).id, payment.id);
  });

  it("uses the caller's idempotency key on every attempt", async () => {
    const { fetch, attempts } = scripted(["reset-before"]);
    const { client } = clientWith(fetch);
    await client.withdraws
      .create({
        amount: "100.00",
        referenceId: ref("wd"),
        destinationType: "bank_account",
        customerBankAccountName: "Nobody",
        customerBankAccountNumber: "1234567890",
        customerBankCode: "014",
        idempotencyKey: "order-42-payout",
      })
      .catch(() => undefined);
    assert.deepEqual(
      attempts.map((a) => JSON.parse(a.body!).idempotencyKey),
      ["order-42-payout", "order-42-payout"],
    );
  });

  it("gives two separate create calls two different idempotency keys", async () => {
    const { fetch, attempts } = scripted([]);
    const { client } = clientWith(fetch);
    await client.payments.create(paymentParams());
    await client.payments.create(paymentParams());
    const keys = attempts.map((a) => JSON.parse(a.body!).idempotencyKey);
    assert.notEqual(keys[0], keys[1]);
  });

  it("backs off exponentially with jitter, and gives up after maxRetries", async () => {
    const { fetch, attempts } = scripted(["reset-before", "reset-before", "reset-before", "reset-before"]);
    const { client, waits } = clientWith(fetch, { maxRetries: 3 });
    await assert.rejects(client.payments.create(paymentParams()), ConnectionError);
    assert.equal(attempts.length, 4);
    assert.equal(waits.length, 3);
    const bounds = [500, 1000, 2000];
    waits.forEach((ms, i) => {
      assert.ok(
        ms >= bounds[i]! / 2 && ms <= bounds[i]!,
        `wait ${i} of ${ms} ms within [${bounds[i]! / 2}, ${bounds[i]}]`,
      );
    });
  });

  it("times out a hanging attempt and retries it", async () => {
    // The answer after the hang is canned: a real server under a loaded test run may take longer
    // than the short timeout this test needs.
    let calls = 0;
    const fetch: FetchLike = (_url, init) => {
      calls += 1;
      if (calls > 1)
        return Promise.resolve(new Response(JSON.stringify({ success: true, data: { id: "p-1" } })));
      return new Promise((_, reject) =>
        init.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
      );
    };
    const { client, waits } = clientWith(fetch, { timeoutMs: 50 });
    const payment = await client.payments.create(paymentParams());
    assert.equal(calls, 2);
    assert.equal(waits.length, 1);
    assert.equal(payment.id, "p-1");
  });

  it("names the create's idempotency key when every attempt's answer was lost, and says it may be done", async () => {
    const { fetch, attempts } = scripted(["reset-after", "reset-after", "reset-after"]);
    const { client } = clientWith(fetch);
    const params = paymentParams();
    const error = await failedCreate(client, params);
    assert.ok(error instanceof ConnectionError);
    const key = JSON.parse(attempts[0]!.body!).idempotencyKey;
    assert.equal(error.idempotencyKey, key);
    assert.equal(error.mayHaveBeenProcessed, true);
    assert.match(error.message, /may have been processed/);
    assert.ok(error.message.includes(key), error.message);
    // The server made it once; the same create with that key answers it.
    const again = await service.client().payments.create({ ...params, idempotencyKey: key });
    assert.equal(again.replayed, true);
    assert.equal(await paymentsWithReference(params.referenceId), 1);
  });

  it("says a create may be done when an earlier attempt's answer was lost, though the last reached nothing", async () => {
    const { fetch, attempts } = scripted(["reset-after", "refused", "refused"]);
    const { client } = clientWith(fetch);
    const params = paymentParams();
    const error = await failedCreate(client, params);
    assert.ok(error instanceof ConnectionError);
    assert.equal(attempts.length, 3);
    assert.equal(error.mayHaveBeenProcessed, true);
    const key = JSON.parse(attempts[0]!.body!).idempotencyKey;
    assert.ok(error.message.includes(key), error.message);
    // It was made: the same create with that key answers it.
    const again = await service.client().payments.create({ ...params, idempotencyKey: key });
    assert.equal(again.replayed, true);
    assert.equal(await paymentsWithReference(params.referenceId), 1);
  });

  it("says a create reached nothing when the server's own 503 said so before a refused connection", async () => {
    const { fetch } = scripted(["503-before", "refused"]);
    const { client } = clientWith(fetch, { maxRetries: 1 });
    const error = await failedCreate(client, paymentParams());
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.mayHaveBeenProcessed, false);
  });

  it("says a create may be done when an earlier answer was lost, though the last was the server's 503", async () => {
    const { fetch, attempts } = scripted(["reset-after", "503-before", "503-before"]);
    const { client } = clientWith(fetch);
    const params = paymentParams();
    const error = await failedCreate(client, params);
    assert.ok(error instanceof ServiceUnavailableError, String(error));
    assert.equal(attempts.length, 3);
    assert.equal(error.mayHaveBeenProcessed, true);
    const key = JSON.parse(attempts[0]!.body!).idempotencyKey;
    assert.equal(error.idempotencyKey, key);
    assert.ok(error.message.includes(key), error.message);
    const again = await service.client().payments.create({ ...params, idempotencyKey: key });
    assert.equal(again.replayed, true);
    assert.equal(await paymentsWithReference(params.referenceId), 1);
  });

  it("says a create may be done after 500s, and not after the server's own 503s", async () => {
    const failed = scripted(["500-after", "500-after", "500-after"]);
    const error = await failedCreate(clientWith(failed.fetch).client, paymentParams());
    assert.ok(error instanceof InternalError, String(error));
    assert.equal(error.mayHaveBeenProcessed, true);
    assert.equal(error.idempotencyKey, JSON.parse(failed.attempts[0]!.body!).idempotencyKey);

    const busy = scripted(["503-before", "503-before", "503-before"]);
    const refused = await failedCreate(clientWith(busy.fetch).client, paymentParams());
    assert.ok(refused instanceof ServiceUnavailableError, String(refused));
    assert.equal(refused.mayHaveBeenProcessed, false);
    assert.equal(refused.idempotencyKey, JSON.parse(busy.attempts[0]!.body!).idempotencyKey);
    assert.doesNotMatch(refused.message, /may have been processed/);
  });

  it("says a create may be done when a lost answer is followed by a redirect, and keeps the key on a redirect alone", async () => {
    const lostThenMoved = scripted(["reset-after", "302-before"]);
    const params = paymentParams();
    const error = await failedCreate(clientWith(lostThenMoved.fetch).client, params);
    assert.ok(error instanceof UnexpectedResponseError, String(error));
    assert.equal(error.mayHaveBeenProcessed, true);
    const key = JSON.parse(lostThenMoved.attempts[0]!.body!).idempotencyKey;
    assert.equal(error.idempotencyKey, key);
    assert.ok(error.message.includes(key), error.message);
    assert.equal(await paymentsWithReference(params.referenceId), 1);

    // A redirect is not the server's answer: whatever sent it may have passed the request on.
    const moved = scripted(["302-before"]);
    const alone = await failedCreate(clientWith(moved.fetch).client, paymentParams());
    assert.ok(alone instanceof UnexpectedResponseError, String(alone));
    assert.equal(alone.mayHaveBeenProcessed, true);
    assert.equal(alone.idempotencyKey, JSON.parse(moved.attempts[0]!.body!).idempotencyKey);
  });

  for (const step of ["page-200-after", "page-403-after"] as const) {
    it(`says a create may be done when its answer was replaced by a page without Satang's envelope (${step})`, async () => {
      const { fetch, attempts } = scripted([step]);
      const params = paymentParams();
      const error = await failedCreate(clientWith(fetch).client, params);
      assert.ok(error instanceof UnexpectedResponseError, String(error));
      assert.equal(attempts.length, 1, "a page that is not a 5xx or 429 is not retried");
      assert.equal(error.mayHaveBeenProcessed, true);
      const key = JSON.parse(attempts[0]!.body!).idempotencyKey;
      assert.equal(error.idempotencyKey, key);
      assert.ok(error.message.includes(key), error.message);
      assert.equal(await paymentsWithReference(params.referenceId), 1, "the server made it");
      // Sent again with that key as the message says: the payment made then, not a second one.
      const again = await service.client().payments.create({ ...params, idempotencyKey: key });
      assert.equal(again.replayed, true);
      assert.equal(await paymentsWithReference(params.referenceId), 1);
    });
  }

  it("repeats a create after a 429 page without Satang's envelope (a proxy's), with the same key: one payment", async () => {
    const { fetch, attempts } = scripted(["page-429-after"]);
    const params = paymentParams();
    const created = await clientWith(fetch).client.payments.create(params);
    assert.equal(attempts.length, 2);
    assert.equal(created.replayed, true, "the first attempt made it");
    assert.equal(await paymentsWithReference(params.referenceId), 1);
  });

  it("says a refused connection reached nothing", async () => {
    const { fetch } = scripted(["refused"]);
    const { client } = clientWith(fetch, { maxRetries: 0 });
    const error = await failedCreate(client, paymentParams());
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.mayHaveBeenProcessed, false);
    assert.doesNotMatch(error.message, /may have been processed/);
  });

  it("says a port the fetch standard never connects to reached nothing", async () => {
    const client = new Satang({
      apiKey: "sk_test_unused",
      apiSecret: "unused",
      baseUrl: "http://127.0.0.1:1",
      maxRetries: 0,
    });
    const error = await failedCreate(client, paymentParams());
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.mayHaveBeenProcessed, false);
    assert.match(error.message, /bad port/);
  });

  it("does not retry with maxRetries 0", async () => {
    const { fetch, attempts } = scripted(["503-before"]);
    const { client } = clientWith(fetch, { maxRetries: 0 });
    await assert.rejects(client.payments.create(paymentParams()), ServiceUnavailableError);
    assert.equal(attempts.length, 1);
  });
});

describe("429 and 4xx", () => {
  function rateLimited(retryAfter: string) {
    let calls = 0;
    const fetch: FetchLike = async (url, init) => {
      calls += 1;
      if (calls === 1) {
        const metadata = { limit: 100, remaining: 0, resetAt: new Date().toISOString(), retryAfter: 7 };
        return new Response(
          JSON.stringify({
            success: false,
            error: { code: "RATE_LIMIT_EXCEEDED", message: "slow down", metadata },
          }),
          { status: 429, headers: { "retry-after": retryAfter } },
        );
      }
      return globalThis.fetch(url, init);
    };
    return { fetch, calls: () => calls };
  }

  it("waits what Retry-After says on 429, then succeeds", async () => {
    const { fetch, calls } = rateLimited("2");
    const { client, waits } = clientWith(fetch);
    const balance = await client.balance.retrieve();
    assert.equal(balance.currency, "THB");
    assert.equal(calls(), 2);
    assert.deepEqual(waits, [2000]);
  });

  it("really sleeps for Retry-After when no sleep is injected", async () => {
    const { fetch } = rateLimited("1");
    const client = service.client({ fetch });
    const started = Date.now();
    await client.balance.retrieve();
    assert.ok(Date.now() - started >= 950, "waited about a second");
  });

  it("reads Retry-After as an HTTP date too, and falls back to the metadata's retryAfter", async () => {
    assert.equal(parseRetryAfter(new Date(Date.now() + 3000).toUTCString(), Date.now())! > 1000, true);
    assert.equal(parseRetryAfter("soon"), undefined);
    // Not seconds and not an HTTP date: unreadable, never a wait of 0 (Date.parse takes these).
    for (const value of ["-1", "1.5", "soon 5"]) assert.equal(parseRetryAfter(value), undefined, value);
    assert.equal(parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", Date.UTC(1994, 10, 6, 8, 49, 30)), 7000);
    assert.equal(parseRetryAfter("Sunday, 06-Nov-94 08:49:37 GMT", Date.UTC(1994, 10, 6, 8, 49, 30)), 7000);
    assert.equal(
      parseRetryAfter("Sun Nov  6 08:49:37 1994", Date.UTC(1994, 10, 6, 8, 49, 30)) !== undefined,
      true,
    );
    const { fetch } = rateLimited("");
    const { client, waits } = clientWith(fetch);
    await client.balance.retrieve();
    assert.deepEqual(waits, [7000]);
    for (const header of ["-1", "1.5"]) {
      const unreadable = clientWith(rateLimited(header).fetch);
      await unreadable.client.balance.retrieve();
      assert.deepEqual(unreadable.waits, [7000], `Retry-After: ${header}`);
    }
  });

  it("retries a write without an idempotency key on 429, which means the server did nothing", async () => {
    const payment = await service.client().payments.create(paymentParams());
    const { fetch, calls } = rateLimited("1");
    const { client } = clientWith(fetch);
    assert.equal((await client.payments.cancel(payment.id)).status, "canceled");
    assert.equal(calls(), 2);
  });

  it("gives up on a Retry-After longer than a minute", async () => {
    const { fetch, calls } = rateLimited("3600");
    const { client, waits } = clientWith(fetch);
    await assert.rejects(client.balance.retrieve(), RateLimitError);
    assert.equal(calls(), 1);
    assert.deepEqual(waits, []);
  });

  it("never retries a 400", async () => {
    const { fetch, attempts } = scripted([]);
    const { client, waits } = clientWith(fetch, { maxRetries: 5 });
    await assert.rejects(client.payments.list({ limit: 1000 }), ValidationError);
    assert.equal(attempts.length, 1);
    assert.deepEqual(waits, []);
  });
});

describe("retries of writes without an idempotency key", () => {
  it("does not repeat a cancel whose answer was lost or failed, since it may have been done", async () => {
    const payment = await service.client().payments.create(paymentParams());
    const lost = scripted(["reset-after"]);
    await assert.rejects(clientWith(lost.fetch).client.payments.cancel(payment.id), ConnectionError);
    assert.equal(lost.attempts.length, 1);

    const other = await service.client().payments.create(paymentParams());
    const failed = scripted(["500-after"]);
    await assert.rejects(clientWith(failed.fetch).client.payments.cancel(other.id), InternalError);
    assert.equal(failed.attempts.length, 1);
  });

  it("repeats a cancel after a 503 or a refused connection, where nothing reached the server", async () => {
    const payment = await service.client().payments.create(paymentParams());
    const { fetch, attempts } = scripted(["503-before", "refused"]);
    const canceled = await clientWith(fetch).client.payments.cancel(payment.id);
    assert.equal(canceled.status, "canceled");
    assert.equal(attempts.length, 3);
    assertFreshSignatures(attempts);
  });

  it("repeats a cancel after the server's 408 REQUEST_TIMEOUT: it never read the whole request", async () => {
    const payment = await service.client().payments.create(paymentParams());
    const { fetch, attempts } = scripted(["408-before"]);
    const canceled = await clientWith(fetch).client.payments.cancel(payment.id);
    assert.equal(canceled.status, "canceled");
    assert.equal(attempts.length, 2);
    assertFreshSignatures(attempts);
  });

  it("does not repeat a cancel after a 503 without Satang's envelope (a proxy's), which may come after the work", async () => {
    const payment = await service.client().payments.create(paymentParams());
    let calls = 0;
    const fetch: FetchLike = async (url, init) => {
      calls += 1;
      const response = await globalThis.fetch(url, init);
      await response.arrayBuffer();
      return new Response("<html>503 Service Temporarily Unavailable</html>", { status: 503 });
    };
    await assert.rejects(clientWith(fetch).client.payments.cancel(payment.id), UnexpectedResponseError);
    assert.equal(calls, 1);
    const read = await service.client().payments.retrieve(payment.id);
    assert.equal(read.status, "canceled");
  });

  it("does not repeat a cancel after a 429 without Satang's envelope (a proxy's), and says it may be done", async () => {
    const payment = await service.client().payments.create(paymentParams());
    const { fetch, attempts } = scripted(["page-429-after"]);
    const error = await clientWith(fetch)
      .client.payments.cancel(payment.id)
      .then(
        () => assert.fail("the cancel should fail"),
        (caught: unknown) => caught,
      );
    assert.ok(error instanceof UnexpectedResponseError, String(error));
    assert.equal(error.mayHaveBeenProcessed, true);
    assert.equal(attempts.length, 1);
    const read = await service.client().payments.retrieve(payment.id);
    assert.equal(read.status, "canceled");
  });

  it("refuses a success answer without data as unexpected, not with a TypeError", async () => {
    const fetch: FetchLike = async () => new Response(JSON.stringify({ success: true }), { status: 201 });
    await assert.rejects(
      clientWith(fetch, { maxRetries: 0 }).client.payments.create(paymentParams()),
      UnexpectedResponseError,
    );
  });

  it("retries reads on any 5xx", async () => {
    const { fetch, attempts } = scripted(["500-after", "reset-after"]);
    const balance = await clientWith(fetch).client.balance.retrieve();
    assert.equal(balance.status, "active");
    assert.equal(attempts.length, 3);
  });
});

describe("configuration", () => {
  it("refuses a client without credentials", () => {
    assert.throws(() => new Satang({ apiKey: "", apiSecret: "x" }), TypeError);
    assert.throws(() => new Satang({ apiKey: "k", apiSecret: "s", maxRetries: -1 }), TypeError);
  });
});
