/**
 * What the attempt log records (events/sender.ts, events/attempt-errors.ts): the receiver's
 * real status, an excerpt of its answer (at most 1 KB, whole characters, secrets blanked out),
 * and an `errorCode` from the closed list, shown by GET /api/v1/events/{id}.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { ATTEMPT_ERROR_CODES } from "../../src/events/attempt-errors.ts";
import { deliverDueWebhooks } from "../../src/events/delivery.ts";
import type { WebhookOverrides } from "../../src/events/settings.ts";
import { WEBHOOK_RESPONSE_EXCERPT_MAX_BYTES } from "../../src/lib/limits.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import {
  cancelPendingDeliveries,
  type Receiver,
  type Responder,
  startReceiver,
  tableResolver,
  writeEvent,
} from "../helpers/webhooks.ts";

let svc: TestService;
const receivers: Receiver[] = [];
const resolver = tableResolver({ "inside.test": ["10.0.0.7"] });

before(async () => {
  svc = await startService({ deps: { webhooks: { resolve: resolver } } });
});
afterEach(async () => {
  await cancelPendingDeliveries(svc.deps);
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
after(async () => {
  await svc.close();
});

async function receiverAnswering(responder: Responder): Promise<Receiver> {
  const target = await startReceiver();
  target.handle(responder);
  receivers.push(target);
  return target;
}

/** A merchant whose one endpoint is `url`; returns the first attempt of one event. */
async function firstAttempt(
  url: string,
  overrides: WebhookOverrides = {},
  setUp?: (secret: string, credentials: Credentials) => void,
) {
  const credentials = await svc.newMerchant();
  const res = await svc.request("POST", "/api/v1/webhook-endpoints", { url, events: ["*"] }, { credentials });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const endpointId: string = res.body.data.id;
  setUp?.(res.body.data.secret, credentials);
  const event = await writeEvent(svc.deps, credentials.merchantId, "payment.received");
  await deliverDueWebhooks(svc.depsWith({ webhooks: { resolve: resolver, ...overrides } }));
  const detail = await svc.request("GET", `/api/v1/events/${event.id}`, undefined, { credentials });
  assert.equal(detail.status, 200);
  return {
    attempt: detail.body.data.deliveries[0].attempts[0],
    delivery: detail.body.data.deliveries[0],
    endpointId,
  };
}

describe("the attempt record", () => {
  it("keeps the receiver's real status and the start of its answer, with errorCode non_2xx", async () => {
    const target = await receiverAnswering((_request, response) => {
      response.statusCode = 500;
      response.setHeader("content-type", "application/json");
      response.end('{"error":"database unavailable"}');
    });
    const { attempt, delivery } = await firstAttempt(target.url);
    assert.equal(attempt.succeeded, false);
    assert.equal(attempt.statusCode, 500);
    assert.equal(attempt.errorCode, "non_2xx");
    assert.equal(attempt.error, "receiver answered 500");
    assert.equal(attempt.responseExcerpt, '{"error":"database unavailable"}');
    assert.equal(delivery.lastStatusCode, 500);
  });

  it("records a success with no errorCode, and its answer", async () => {
    const target = await receiverAnswering((_request, response) => {
      response.statusCode = 202;
      response.end("queued");
    });
    const { attempt } = await firstAttempt(target.url);
    assert.equal(attempt.succeeded, true);
    assert.equal(attempt.statusCode, 202);
    assert.equal(attempt.errorCode, null);
    assert.equal(attempt.error, null);
    assert.equal(attempt.responseExcerpt, "queued");
  });

  it("keeps at most 1 KB of a long answer, cut between characters", async () => {
    // 3-byte characters: 1024 is not a multiple of 3, so a byte cut would split one.
    const target = await receiverAnswering((_request, response) => {
      response.statusCode = 400;
      response.end("ข".repeat(5_000));
    });
    const { attempt } = await firstAttempt(target.url);
    const excerpt: string = attempt.responseExcerpt;
    assert.ok(Buffer.byteLength(excerpt) <= WEBHOOK_RESPONSE_EXCERPT_MAX_BYTES);
    assert.equal(excerpt, "ข".repeat(Math.floor(WEBHOOK_RESPONSE_EXCERPT_MAX_BYTES / 3)));
    assert.equal(attempt.errorCode, "non_2xx");
  });

  it("never stores the endpoint's secret, even when the receiver echoes it", async () => {
    let secret = "";
    const target = await receiverAnswering((_request, response) => {
      response.statusCode = 401;
      response.end(`bad signature; my secret is ${secret} (key ${secret.slice("whsec_".length)})`);
    });
    const { attempt } = await firstAttempt(target.url, {}, (s) => {
      secret = s;
    });
    assert.ok(!attempt.responseExcerpt.includes(secret));
    assert.ok(!attempt.responseExcerpt.includes(secret.slice("whsec_".length)));
    assert.match(attempt.responseExcerpt, /\[redacted\]/);
  });

  it("never stores the secret's key in hex, base64url or URL-encoded either", async () => {
    let secret = "";
    const spellings = () => {
      const key = Buffer.from(secret.slice("whsec_".length), "base64");
      return [
        key.toString("hex"),
        key.toString("hex").toUpperCase(),
        key.toString("base64url"),
        encodeURIComponent(secret),
        encodeURIComponent(secret.slice("whsec_".length)),
      ];
    };
    const target = await receiverAnswering((_request, response) => {
      response.statusCode = 401;
      response.end(spellings().join(" | "));
    });
    const { attempt } = await firstAttempt(target.url, {}, (s) => {
      secret = s;
    });
    for (const spelling of spellings()) {
      assert.ok(!attempt.responseExcerpt.includes(spelling), `${spelling} in ${attempt.responseExcerpt}`);
    }
    // What is left of a URL-encoded secret after its prefix is blanked too.
    assert.ok(!/whsec_[^[]/.test(attempt.responseExcerpt), attempt.responseExcerpt);
  });

  it("codes a redirect as redirect", async () => {
    const target = await receiverAnswering((_request, response) => {
      response.statusCode = 301;
      response.setHeader("location", "https://example.com/");
      response.end();
    });
    const { attempt } = await firstAttempt(target.url);
    assert.equal(attempt.statusCode, 301);
    assert.equal(attempt.errorCode, "redirect");
    assert.equal(attempt.error, "redirect (301) not followed (to https://example.com/)");
  });

  it("says a relative redirect's target in full, with secrets and control characters out of it", async () => {
    const target = await receiverAnswering((_request, response) => {
      response.statusCode = 307;
      response.setHeader("location", "/v2/hook?key=whsec_abcdefABCDEF0123&x=%0d");
      response.end();
    });
    const { attempt } = await firstAttempt(target.url);
    assert.equal(attempt.errorCode, "redirect");
    assert.equal(
      attempt.error,
      `redirect (307) not followed (to ${new URL("/v2/hook", target.url).href}?key=whsec_[redacted]&x=%0d)`,
    );
  });

  it("codes a receiver that does not answer in time as timeout, with no status and no excerpt", async () => {
    const target = await receiverAnswering(() => {});
    const { attempt } = await firstAttempt(target.url, { timeoutMs: 200 });
    assert.equal(attempt.statusCode, null);
    assert.equal(attempt.errorCode, "timeout");
    assert.equal(attempt.responseExcerpt, null);
  });

  it("codes a closed port as connection_refused", async () => {
    const target = await startReceiver();
    await target.close();
    const { attempt } = await firstAttempt(target.url);
    assert.equal(attempt.errorCode, "connection_refused");
    assert.equal(attempt.statusCode, null);
  });

  it("codes a connection closed before any answer as connection_reset", async () => {
    const target = await receiverAnswering((request) => {
      request.socket.destroy();
    });
    const { attempt } = await firstAttempt(target.url);
    assert.equal(attempt.errorCode, "connection_reset");
  });

  it("codes a host that stopped resolving as dns, and one now resolving to a private address as url_refused", async () => {
    const target = await startReceiver();
    receivers.push(target);
    resolver.table["moving.test"] = ["127.0.0.1"];
    const url = `http://moving.test:${target.port}/hooks`;
    const { attempt: dns } = await firstAttempt(url, {}, () => {
      delete resolver.table["moving.test"];
    });
    assert.equal(dns.errorCode, "dns");
    resolver.table["moving.test"] = ["127.0.0.1"];
    const { attempt: refused } = await firstAttempt(url, {}, () => {
      resolver.table["moving.test"] = ["10.0.0.7"];
    });
    assert.equal(refused.errorCode, "url_refused");
    assert.equal(target.received.length, 0);
  });

  it("only ever uses codes of the published list", () => {
    assert.deepEqual(
      [...ATTEMPT_ERROR_CODES].sort(),
      [
        "connection_refused",
        "connection_reset",
        "dns",
        "network",
        "non_2xx",
        "redirect",
        "timeout",
        "tls",
        "url_refused",
      ].sort(),
    );
  });
});
