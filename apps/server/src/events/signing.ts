/**
 * Endpoint secrets and the Standard Webhooks headers (standardwebhooks.com). Signing goes
 * through the `standardwebhooks` package, the library merchants verify with, so the two
 * cannot drift apart: `webhook-signature` is `v1,` + base64 HMAC-SHA256(key, `id.timestamp.body`)
 * where the key is the base64 part of the `whsec_` secret.
 */
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { WEBHOOK_SECRET_RANDOM_BYTES } from "../lib/limits.ts";

const WEBHOOK_SECRET_PREFIX = "whsec_";
const WEBHOOK_USER_AGENT = "Satang-Webhooks/1";

export function newEndpointSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(WEBHOOK_SECRET_RANDOM_BYTES).toString("base64")}`;
}

/**
 * The `webhook-signature` value: one `v1,<base64>` per secret, space-separated. During a
 * rotation both the new and the previous secret sign, so a receiver holding either verifies.
 */
export function signatureHeader(
  secrets: readonly string[],
  messageId: string,
  at: Date,
  body: string,
): string {
  return secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(" ");
}

/** Every header of one delivery attempt. `at` is the wall clock at sending. */
export function webhookHeaders(
  secrets: readonly string[],
  messageId: string,
  at: Date,
  body: string,
): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": WEBHOOK_USER_AGENT,
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatureHeader(secrets, messageId, at, body),
  };
}
