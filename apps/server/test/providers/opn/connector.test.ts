import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inspect } from "node:util";
import { ConfigError, opnConfigFrom } from "../../../src/config.ts";
import { systemClock } from "../../../src/lib/clock.ts";
import { createOpnConnector } from "../../../src/providers/opn/connector.ts";
import { openTestStore } from "../../helpers/store.ts";

const TOKEN = "t".repeat(40);
const env = (overrides: Record<string, string | undefined> = {}) => ({
  OPN_SECRET_KEY: "skey_test_5x0abcdefghij",
  OPN_CALLBACK_TOKEN: TOKEN,
  ...overrides,
});

describe("Opn settings", () => {
  it("defaults to Opn's API, a 15 s timeout, 7 days for a recipient's verification and no public key", () => {
    const config = opnConfigFrom(env());
    assert.equal(config.apiBaseUrl, "https://api.omise.co");
    assert.equal(config.requestTimeoutMs, 15_000);
    assert.equal(config.recipientVerifyMaxMs, 7 * 86_400_000);
    assert.equal(config.publicKey, null);
    assert.equal(config.webhookSecret, null);
  });

  it("reads every setting, trimming the base URL's trailing slash", () => {
    const config = opnConfigFrom(
      env({
        OPN_API_BASE_URL: "http://127.0.0.1:9999/",
        OPN_PUBLIC_KEY: "pkey_test_abc",
        OPN_WEBHOOK_SECRET: Buffer.from("a webhook secret of opn").toString("base64"),
        OPN_TIMEOUT_MS: "2500",
        OPN_RECIPIENT_VERIFY_MAX_S: "3600",
      }),
    );
    assert.equal(config.apiBaseUrl, "http://127.0.0.1:9999");
    assert.equal(config.publicKey, "pkey_test_abc");
    assert.equal(config.requestTimeoutMs, 2_500);
    assert.equal(config.recipientVerifyMaxMs, 3_600_000);
  });

  it("refuses each bad setting with an error naming its variable", () => {
    const cases: [Record<string, string | undefined>, RegExp][] = [
      [{ OPN_SECRET_KEY: undefined }, /OPN_SECRET_KEY is required/],
      [{ OPN_SECRET_KEY: "pkey_test_wrongkind" }, /OPN_SECRET_KEY must be/],
      [{ OPN_CALLBACK_TOKEN: "short" }, /OPN_CALLBACK_TOKEN must be/],
      [{ OPN_CALLBACK_TOKEN: undefined }, /OPN_CALLBACK_TOKEN is required/],
      [{ OPN_PUBLIC_KEY: "skey_test_x" }, /OPN_PUBLIC_KEY/],
      [{ OPN_API_BASE_URL: "ftp://opn" }, /OPN_API_BASE_URL/],
      [{ OPN_API_BASE_URL: "https://skey:x@api.omise.co" }, /OPN_API_BASE_URL must not carry credentials/],
      [{ OPN_RECIPIENT_VERIFY_MAX_S: "10" }, /OPN_RECIPIENT_VERIFY_MAX_S must be between/],
      [{ OPN_RECIPIENT_VERIFY_MAX_S: "1.5" }, /OPN_RECIPIENT_VERIFY_MAX_S must be a whole number/],
      [{ OPN_WEBHOOK_SECRET: "!!" }, /OPN_WEBHOOK_SECRET/],
    ];
    for (const [overrides, message] of cases) {
      assert.throws(
        () => opnConfigFrom(env(overrides)),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, message);
          assert.doesNotMatch(error.message, /skey_test_5x0abcdefghij/);
          return true;
        },
      );
    }
  });

  it("never prints the secret key, the callback token or the webhook secret", () => {
    const secret = Buffer.from("a webhook secret of opn").toString("base64");
    const config = opnConfigFrom(env({ OPN_WEBHOOK_SECRET: secret }));
    for (const printed of [JSON.stringify(config), inspect(config)]) {
      assert.doesNotMatch(printed, /skey_test_5x0abcdefghij/);
      assert.ok(!printed.includes(TOKEN));
      assert.ok(!printed.includes(secret));
    }
  });
});

describe("Opn connector", () => {
  it("is named opn, takes its notifications under its callback token, collects promptpay and pays out", async () => {
    const store = await openTestStore();
    try {
      const connector = createOpnConnector(opnConfigFrom(env()), { db: store.db, clock: systemClock });
      assert.equal(connector.name, "opn");
      assert.equal(connector.callbackToken, TOKEN);
      assert.deepEqual(connector.collection?.methods, ["promptpay"]);
      assert.equal(connector.payouts?.name, "opn");
      const deskPays = createOpnConnector(opnConfigFrom(env()), {
        db: store.db,
        clock: systemClock,
        payouts: false,
      });
      assert.equal(deskPays.payouts, undefined);
    } finally {
      await store.close();
    }
  });
});
