/**
 * The sandbox routes under /api/v1/sandbox (CONTRACT 9), merchant HMAC authentication like
 * every /api/v1 route. They are registered only when SATANG_ENV=sandbox, so in live every one
 * of them answers 404 RESOURCE_NOT_FOUND like any unknown route. Each route is its schema and
 * one lifecycle call; ids of other merchants answer 404 like missing ones.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { merchantOf } from "../http/auth.ts";
import { emptyBodyAsObject } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import { EmptyBody } from "../http/fields.ts";
import { documented } from "../http/openapi-errors.ts";
import type { App } from "../http/typed-app.ts";
import { recordAnomaly } from "../lifecycle/anomalies.ts";
import {
  advanceMerchantClock,
  DUE_WORK_LEFT,
  readMerchantClock,
  resetMerchantClock,
} from "../lifecycle/clock.ts";
import { type LifecycleContext, simulatorOf } from "../lifecycle/context.ts";
import { reportRefused, simulatePayment } from "../lifecycle/payments.ts";
import { conflict, simulateWithdraw } from "../lifecycle/payouts.ts";
import { ClockAdvanceBody } from "../lifecycle/schemas.ts";
import { runSettlementsForMerchant } from "../lifecycle/settlement.ts";
import { PaymentEnvelope } from "../payments/schemas.ts";
import { paymentNotFound } from "../payments/service.ts";
import { sandboxRefundRoutes } from "../refunds/routes.ts";
import { walletInactive } from "../withdraws/admission.ts";
import { WithdrawEnvelope } from "../withdraws/schemas.ts";
import { withdrawNotFound } from "../withdraws/service.ts";
import {
  ClockEnvelope,
  IdParams,
  SettlementRunEnvelope,
  SimulatePaymentBody,
  SimulateWithdrawBody,
} from "./schemas.ts";

const tags = ["sandbox"];
const CONFLICT = "409 STATE_CONFLICT when the current status does not allow it (metadata: status, reason).";

export function sandboxRoutes(ctx: LifecycleContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    simulatePaymentRoute(app, ctx);
    simulateWithdrawRoute(app, ctx);
    await plugin.register(
      sandboxRefundRoutes({
        ...ctx,
        recordLateSuccessAnomaly: (trx, refundId, refusal) =>
          recordAnomaly(trx, ctx, {
            provider: simulatorOf(ctx).name,
            subjectType: "refund",
            subjectId: refundId,
            report: "payout.paid",
            callbackId: null,
            refusal,
          }),
      }),
    );
    runSettlementsRoute(app, ctx);
    advanceClockRoute(app, ctx);
    resetClockRoute(app, ctx);
    readClockRoute(app, ctx);
  };
}

function simulatePaymentRoute(app: App, ctx: LifecycleContext): void {
  app.post(
    "/payments/:id/simulate",
    {
      schema: {
        tags,
        summary: "Simulate the provider's report on a payment",
        operationId: "simulatePayment",
        description:
          "succeeded: requires_action -> succeeded (confirmedAt, capturedAt set; payment.received; " +
          "the amount enters settlement pending). On an expired payment within 72 hours of " +
          "expiresAt this is the late confirmation; later, or on a canceled or failed payment, it is " +
          `refused and recorded for the operator. failed: -> payment_failed (payment.failed). ${CONFLICT}`,
        params: IdParams,
        body: SimulatePaymentBody,
        response: { 200: PaymentEnvelope },
        "x-errors": [
          documented("No payment of this merchant has this id", paymentNotFound()),
          documented(
            "The payment's status does not allow this report",
            reportRefused(undefined, "canceled", "invalid_transition"),
          ),
        ],
      },
    },
    async (request) =>
      ok(await simulatePayment(ctx, merchantOf(request).id, request.params.id, request.body.outcome)),
  );
}

function simulateWithdrawRoute(app: App, ctx: LifecycleContext): void {
  app.post(
    "/withdraws/:id/simulate",
    {
      schema: {
        tags,
        summary: "Simulate the provider's handling of a withdraw",
        operationId: "simulateWithdraw",
        description:
          "processing: pending -> processing (withdraw.processing). paid: -> paid, the hold consumed " +
          "(withdraw.paid); on a failed or expired withdraw, the late success debits the wallet again. " +
          "failed: -> failed, the hold released (withdraw.failed). indeterminate: the bank's answer is " +
          `lost; the withdraw stays processing until the reconciler asks the bank. ${CONFLICT} ` +
          "With SATANG_PAYOUTS=manual, or on a withdraw the payout desk took into a batch, every report is 409 " +
          "(reason payout_desk): the payout desk records the outcome. " +
          "A pending withdraw of a frozen or closed wallet is not handed to the bank: 403 WALLET_INACTIVE.",
        params: IdParams,
        body: SimulateWithdrawBody,
        response: { 200: WithdrawEnvelope },
        "x-errors": [
          documented("No withdraw of this merchant has this id", withdrawNotFound()),
          documented(
            "The withdraw's status does not allow this report",
            conflict({ status: "paid" }, "Withdraw is already paid"),
          ),
          documented("The wallet is frozen or closed: a pending withdraw waits", walletInactive("frozen")),
        ],
      },
    },
    async (request) =>
      ok(await simulateWithdraw(ctx, merchantOf(request).id, request.params.id, request.body.outcome)),
  );
}

function runSettlementsRoute(app: App, ctx: LifecycleContext): void {
  app.post(
    "/settlements/run",
    {
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: "Settle every succeeded payment whose settlement delay has passed, now",
        operationId: "runSettlements",
        description:
          "Moves the amounts from settlement pending to the wallet and answers what it settled. " +
          "Payments still inside the merchant's settlementDelayHours (business time) stay pending.",
        body: EmptyBody,
        response: { 200: SettlementRunEnvelope },
      },
    },
    async (request) => ok(await runSettlementsForMerchant(ctx, merchantOf(request).id)),
  );
}

function advanceClockRoute(app: App, ctx: LifecycleContext): void {
  app.post(
    "/clock/advance",
    {
      schema: {
        tags,
        summary: "Move the merchant's test clock forward",
        operationId: "advanceTestClock",
        description:
          "Only this merchant's business time moves; authentication, rate limits and webhook " +
          "timestamps keep the wall clock. Work that becomes due (expiry, verification expiry, " +
          "settlement) is done before the answer; if that work fails after the clock moved, the " +
          "answer is still the moved clock (200) and the workers finish it.",
        body: ClockAdvanceBody,
        response: { 200: ClockEnvelope },
      },
    },
    async (request) =>
      ok(
        await advanceMerchantClock(ctx, merchantOf(request).id, request.body.seconds, (err) =>
          request.log.warn({ err }, DUE_WORK_LEFT),
        ),
      ),
  );
}

function resetClockRoute(app: App, ctx: LifecycleContext): void {
  app.post(
    "/clock/reset",
    {
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: "Bring the merchant's test clock back to wall-clock time",
        operationId: "resetTestClock",
        description:
          "The offset returns to 0, so new records are stamped with real time again. Records already " +
          "made keep their timestamps and nothing moves backwards for a record: an open payment's " +
          "expiresAt stays where it was set (it expires when the clock reaches it), and a later change " +
          "to a record is never stamped before its last one.",
        body: EmptyBody,
        response: { 200: ClockEnvelope },
      },
    },
    async (request) => ok(await resetMerchantClock(ctx, merchantOf(request).id)),
  );
}

function readClockRoute(app: App, ctx: LifecycleContext): void {
  app.get(
    "/clock",
    {
      schema: {
        tags,
        summary: "Read the merchant's test clock",
        operationId: "retrieveTestClock",
        response: { 200: ClockEnvelope },
      },
    },
    async (request) => ok(await readMerchantClock(ctx, merchantOf(request).id)),
  );
}
