/**
 * Idempotent creates (CONTRACT 5 and 7), one set of rules for payments and withdraws: a create
 * is identified by the hash of its body; the same idempotency key with the same body is a
 * replay (the original record, 200), with another body 422 IDEMPOTENCY_KEY_MISMATCH; a
 * referenceId already used by another record of the merchant is 409 DUPLICATE_REFERENCE_ID.
 * The key decides before the reference.
 */
import { canonicalJsonHash } from "./crypto.ts";
import { AppError, fieldError } from "./errors.ts";

/** What an idempotent create remembers of its request. */
interface IdempotentRecord {
  idempotency_key: string;
  request_hash: string;
}

/** The hash a create stores and a replay is compared by: key order and spacing do not matter. */
export function requestHashOf(body: object): string {
  return canonicalJsonHash(body);
}

/** The record a key names, when the body is the one it was created with; otherwise 422. */
export function replayOf<R extends IdempotentRecord>(existing: R, requestHash: string): R {
  if (existing.request_hash !== requestHash) throw idempotencyKeyMismatch();
  return existing;
}

/** 422 for a key already used with another body. */
export function idempotencyKeyMismatch(): AppError {
  return new AppError(
    "IDEMPOTENCY_KEY_MISMATCH",
    "idempotencyKey was already used with a different request body",
    {
      field: "idempotencyKey",
    },
  );
}

/** 409 for a referenceId another record of the merchant has. */
export function duplicateReference(
  resource: "payment" | "withdraw" | "refund",
  referenceId: string,
): AppError {
  return fieldError(
    "DUPLICATE_REFERENCE_ID",
    "referenceId",
    `A ${resource} with referenceId "${referenceId}" already exists`,
  );
}

/**
 * What the existing records holding a create's idempotency key or its referenceId mean for it:
 * the key decides first (replay, or 422), then the reference (409). Undefined when there are none.
 */
export function settleAgainst<R extends IdempotentRecord>(
  resource: "payment" | "withdraw" | "refund",
  existing: R[],
  create: { idempotencyKey: string; referenceId: string; requestHash: string },
): R | undefined {
  const sameKey = existing.find((row) => row.idempotency_key === create.idempotencyKey);
  if (sameKey) return replayOf(sameKey, create.requestHash);
  if (existing.length > 0) throw duplicateReference(resource, create.referenceId);
  return undefined;
}
