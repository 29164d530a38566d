/**
 * The manual payout desk's operator routes under /admin/v1 (docs/payout-desk.md), in the
 * operator scope (admin/auth.ts runs first, app.ts):
 *
 * - POST /payout-batches                                   take pending withdraws and refunds into a batch
 * - GET  /payout-batches                                   list batches, newest first
 * - GET  /payout-batches/:id                               one batch with its items
 * - GET  /payout-batches/:id/csv                           the file the operator pays from
 * - POST /payout-batches/:id/items/:withdrawId/outcome     paid (bank reference) or failed (reason)
 * - POST /payout-batches/:id/refunds/:refundId/outcome     the same for a refund line
 */

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { operatorActor } from "../admin/actor.ts";
import { emptyBodyAsObject } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import { documented } from "../http/openapi-errors.ts";
import { EXAMPLE_IDS } from "../http/openapi-examples.ts";
import type { App } from "../http/typed-app.ts";
import { notFound } from "../lib/errors.ts";
import { bankReferenceInUse } from "../lifecycle/bank-references.ts";
import {
  BatchEnvelope,
  BatchIdParams,
  BatchItemParams,
  BatchListEnvelope,
  BatchListQuery,
  BatchRefundParams,
  CreateBatchBody,
  RecordOutcomeBody,
} from "./schemas.ts";
import {
  batchCsvFile,
  batchNotFound,
  createBatch,
  deskOff,
  getBatch,
  listPayoutBatches,
  notInBatch,
  outcomeAlreadyRecorded,
  type PayoutDeskContext,
  recordOutcome,
  recordRefundOutcome,
  walletNotPaid,
} from "./service.ts";

const batchMissing = documented("No payout batch has this id", batchNotFound());

/** The example bank reference of the outcome conflicts below. */
const EXAMPLE_BANK_REFERENCE = "KB-20260115-0001";

/**
 * The 409s of recording a line's outcome (withdraw or refund): another outcome is recorded for
 * the line already, or the bank reference is recorded for another line.
 */
function outcomeConflicts(kind: "withdraw" | "refund") {
  const refundId = kind === "refund" ? EXAMPLE_IDS.refund : null;
  return [
    documented(
      `The ${kind}'s outcome is already recorded, and this one differs`,
      outcomeAlreadyRecorded({
        refund_id: refundId,
        outcome: "paid",
        bank_reference: EXAMPLE_BANK_REFERENCE,
        failure_reason: null,
      }),
    ),
    documented(
      "The bank reference is recorded for another withdraw or refund already",
      bankReferenceInUse(EXAMPLE_BANK_REFERENCE, {
        batch_id: EXAMPLE_IDS.payoutBatch,
        withdraw_id: EXAMPLE_IDS.withdraw,
        refund_id: null,
      }),
    ),
  ];
}

const tags = ["admin"];

export function payoutDeskRoutes(ctx: PayoutDeskContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    createRoute(app, ctx);
    listRoute(app, ctx);
    showRoute(app, ctx);
    csvRoute(app, ctx);
    outcomeRoute(app, ctx);
    refundOutcomeRoute(app, ctx);
  };
}

function createRoute(app: App, ctx: PayoutDeskContext): void {
  app.post(
    "/payout-batches",
    {
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: "Take pending withdraws into a payout batch (manual payout desk)",
        operationId: "createPayoutBatch",
        "x-errors": [
          documented("Withdraws are paid through the provider (SATANG_PAYOUTS is not manual)", deskOff()),
          documented("No merchant has the merchantId", notFound("Merchant")),
          documented("The merchant's wallet is frozen or closed: its payouts wait", walletNotPaid("frozen")),
        ],
        description:
          "SATANG_PAYOUTS=manual only. Takes the oldest pending withdraws (all merchants, or " +
          "merchantId's; at most maxCount) and moves each to processing (withdraw.processing). " +
          "A withdraw is never in two open batches. Nothing pending: 409 STATE_CONFLICT " +
          "(reason no_pending_withdraws); a merchantId whose wallet is frozen or closed: 409 (reason " +
          "wallet_inactive; its payouts wait pending); desk off: 409 (reason payout_desk_off); an " +
          "unknown merchantId: 404.",
        body: CreateBatchBody,
        response: { 201: BatchEnvelope },
      },
    },
    async (request, reply) =>
      reply.code(201).send(ok(await createBatch(ctx, request.body, operatorActor(request).name))),
  );
}

function listRoute(app: App, ctx: PayoutDeskContext): void {
  app.get(
    "/payout-batches",
    {
      schema: {
        tags,
        summary: "List payout batches, newest first",
        operationId: "listPayoutBatches",
        querystring: BatchListQuery,
        response: { 200: BatchListEnvelope },
      },
    },
    async (request) => ok(await listPayoutBatches(ctx, request.query)),
  );
}

function showRoute(app: App, ctx: PayoutDeskContext): void {
  app.get(
    "/payout-batches/:id",
    {
      schema: {
        tags,
        summary: "A payout batch with its items",
        operationId: "retrievePayoutBatch",
        params: BatchIdParams,
        "x-errors": [batchMissing],
        response: { 200: BatchEnvelope },
      },
    },
    async (request) => ok(await getBatch(ctx, request.params.id)),
  );
}

function csvRoute(app: App, ctx: PayoutDeskContext): void {
  app.get(
    "/payout-batches/:id/csv",
    {
      schema: {
        tags,
        summary: "Download a payout batch as CSV (the operator pays from it)",
        operationId: "downloadPayoutBatchCsv",
        description:
          "text/csv; charset=utf-8, RFC 4180 with a UTF-8 byte order mark. Columns: bank_code, " +
          "bank_name, account_number (in full), account_name, amount_thb (two decimals), " +
          "withdraw_id, reference, destination_type, status (open, paid, failed), " +
          "bank_reference, failure_reason, recorded_by. Cells a spreadsheet would run as a " +
          "formula are prefixed with '.",
        params: BatchIdParams,
        "x-errors": [batchMissing],
        produces: ["text/csv"],
      },
    },
    async (request, reply) => {
      const file = await batchCsvFile(ctx, request.params.id);
      return reply
        .header("Content-Type", "text/csv; charset=utf-8")
        .header("Content-Disposition", `attachment; filename="${file.fileName}"`)
        .header("Cache-Control", "no-store")
        .send(file.body);
    },
  );
}

function outcomeRoute(app: App, ctx: PayoutDeskContext): void {
  app.post(
    "/payout-batches/:id/items/:withdrawId/outcome",
    {
      schema: {
        tags,
        summary: "Record what the bank did with one withdraw of a batch",
        operationId: "recordPayoutOutcome",
        description:
          "paid with the bank's reference (hold becomes a debit, withdraw.paid) or failed with a " +
          "reason (hold released, withdraw.failed). The same outcome again is a no-op 200 (a bank " +
          "reference compared without case); paid on a line recorded failed is the late success (the " +
          "bank paid it after all: debited again, withdraw.paid); any other different one is 409 " +
          "STATE_CONFLICT, and so is a bank reference already recorded for another " +
          "withdraw (reason bank_reference_in_use). The operator who records it is kept " +
          "(recordedBy, from the credential; recordedVia, from the X-Satang-Client header: cli or " +
          "desk, else api). The last outcome closes the batch.",
        params: BatchItemParams,
        "x-errors": [
          batchMissing,
          documented("The withdraw is not a line of this batch", notInBatch({ kind: "withdraw" })),
          ...outcomeConflicts("withdraw"),
        ],
        body: RecordOutcomeBody,
        response: { 200: BatchEnvelope },
      },
    },
    async (request) =>
      ok(
        await recordOutcome(
          ctx,
          request.params.id,
          request.params.withdrawId,
          request.body,
          operatorActor(request),
        ),
      ),
  );
}

function refundOutcomeRoute(app: App, ctx: PayoutDeskContext): void {
  app.post(
    "/payout-batches/:id/refunds/:refundId/outcome",
    {
      schema: {
        tags,
        summary: "Record what the bank did with one refund of a batch",
        operationId: "recordRefundPayoutOutcome",
        description:
          "A refund line's outcome, recorded like a withdraw's: paid with the bank's reference (the " +
          "hold is consumed, refund.succeeded) or failed with a reason (the hold returns where it " +
          "came from, refund.failed with the reason as failureReason). The same outcome again is a " +
          "no-op 200; paid on a line recorded failed is the refund's late success (taken again, " +
          "refund.succeeded); any other different one, or a bank reference already recorded for " +
          "another line, 409 STATE_CONFLICT. Who recorded it is kept. The last outcome closes the batch.",
        params: BatchRefundParams,
        "x-errors": [
          batchMissing,
          documented("The refund is not a line of this batch", notInBatch({ kind: "refund" })),
          ...outcomeConflicts("refund"),
        ],
        body: RecordOutcomeBody,
        response: { 200: BatchEnvelope },
      },
    },
    async (request) =>
      ok(
        await recordRefundOutcome(
          ctx,
          request.params.id,
          request.params.refundId,
          request.body,
          operatorActor(request),
        ),
      ),
  );
}
