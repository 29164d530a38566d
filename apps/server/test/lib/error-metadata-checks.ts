// biome-ignore-all format: each @ts-expect-error must stay on the line before the code it is about
/**
 * `new AppError(code, message, metadata)` is checked by the compiler against the code's metadata
 * schema (lib/error-metadata.ts). This file is compiled by `npm run typecheck` (CI runs it before
 * the tests): every line marked `@ts-expect-error` must be refused, or the directive is reported
 * as unused and the type check fails; every other line must compile. Nothing here runs.
 */
import { AppError, fieldError, isAppError } from "../../src/lib/errors.ts";

export const balance = new AppError("INSUFFICIENT_BALANCE", "m", { available: "1.00", amount: "2.00" });
// @ts-expect-error INSUFFICIENT_BALANCE needs both amounts.
export const partial = new AppError("INSUFFICIENT_BALANCE", "m", { available: "1.00" });
// @ts-expect-error The amounts are decimal strings.
export const numeric = new AppError("INSUFFICIENT_BALANCE", "m", { available: 1, amount: 2 });
// @ts-expect-error A key the schema does not describe.
export const extra = new AppError("INSUFFICIENT_BALANCE", "m", { available: "1", amount: "2", currency: "THB" });
// @ts-expect-error INSUFFICIENT_BALANCE always has metadata.
export const bare = new AppError("INSUFFICIENT_BALANCE", "m");

export const notFound = new AppError("RESOURCE_NOT_FOUND", "m");
// @ts-expect-error RESOURCE_NOT_FOUND has no metadata.
export const notFoundWith = new AppError("RESOURCE_NOT_FOUND", "m", {});

export const validation = new AppError("VALIDATION_ERROR", "m");
export const validationField = new AppError("VALIDATION_ERROR", "m", { field: "amount" });
export const guard = new AppError("STATE_CONFLICT", "m", {
  existingWithdrawId: "id",
  existingWithdrawStatus: "pending",
  reason: "active_payout",
});
// @ts-expect-error Not a withdraw status.
export const badStatus = new AppError("STATE_CONFLICT", "m", { existingWithdrawId: "id", existingWithdrawStatus: "done", reason: "active_payout" });
// @ts-expect-error SERVICE_UNAVAILABLE says how long to wait.
export const unavailable = new AppError("SERVICE_UNAVAILABLE", "m", { reason: "busy" });

export const field = fieldError("INVALID_AMOUNT", "amount", "m");
// @ts-expect-error STATE_CONFLICT is not a field error.
export const notField = fieldError("STATE_CONFLICT", "email", "m");

export function wait(error: unknown): number | undefined {
  if (!isAppError(error)) return undefined;
  if (error.code === "RATE_LIMIT_EXCEEDED") return error.metadata.retryAfter;
  // @ts-expect-error The metadata of an unnarrowed code is the union of every code's.
  return error.metadata.retryAfter;
}
