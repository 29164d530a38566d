/**
 * Every state-changing route of the operator API and the dashboard, with the action its audit
 * entry records and where the entry finds its record (trail.ts). Actions are the routes'
 * operationIds where they have one, so an operator filters the log by the names of the API.
 */
export interface AuditedRoute {
  action: string;
  /** The kind of record acted on. */
  record: string;
  /** Where the record's id is: a path parameter, the answer's `id`, the acting user, or none. */
  id: "id" | "withdrawId" | "refundId" | "response" | "actor" | "session-merchant" | "none";
  /** `params.id` when the path's :id is the merchant's and the record is something of it. */
  merchant?: "params.id";
  /**
   * For `id: "response"`: the field of the action's transaction result that holds the created
   * record, when the result wraps it (the entry is written in that transaction, before the answer).
   */
  inResult?: string;
}

const A = "/admin/v1";
const D = "/dashboard/api";

export const AUDITED_ROUTES: Readonly<Record<string, AuditedRoute>> = {
  [`POST ${A}/merchants`]: { action: "createMerchant", record: "merchant", id: "response" },
  [`PATCH ${A}/merchants/:id`]: { action: "updateMerchant", record: "merchant", id: "id" },
  [`POST ${A}/merchants/:id/integrations`]: {
    action: "createIntegration",
    record: "integration",
    id: "response",
    merchant: "params.id",
  },
  [`PATCH ${A}/integrations/:id`]: { action: "updateIntegration", record: "integration", id: "id" },
  [`DELETE ${A}/integrations/:id`]: { action: "revokeIntegration", record: "integration", id: "id" },
  [`POST ${A}/merchants/:id/wallet/adjustments`]: {
    action: "adjustMerchantWallet",
    record: "ledger_entry",
    id: "response",
    merchant: "params.id",
    inResult: "adjustment",
  },
  [`POST ${A}/merchants/:id/users`]: {
    action: "createDashboardUser",
    record: "dashboard_user",
    id: "response",
    merchant: "params.id",
  },
  [`POST ${A}/users/:id/two-factor/reset`]: { action: "resetTwoFactor", record: "dashboard_user", id: "id" },
  [`POST ${A}/withdraws/:id/approve`]: { action: "approveWithdraw", record: "withdraw", id: "id" },
  [`POST ${A}/withdraws/:id/reject`]: { action: "rejectWithdraw", record: "withdraw", id: "id" },
  [`POST ${A}/withdraws/:id/resolve`]: { action: "resolveWithdraw", record: "withdraw", id: "id" },
  [`POST ${A}/refunds/:id/resolve`]: { action: "resolveRefund", record: "refund", id: "id" },
  [`POST ${A}/merchants/:id/clock/advance`]: {
    action: "advanceMerchantTestClock",
    record: "merchant",
    id: "id",
  },
  [`POST ${A}/merchants/:id/clock/reset`]: { action: "resetMerchantTestClock", record: "merchant", id: "id" },
  [`POST ${A}/payout-batches`]: { action: "createPayoutBatch", record: "payout_batch", id: "response" },
  [`POST ${A}/payout-batches/:id/items/:withdrawId/outcome`]: {
    action: "recordPayoutOutcome",
    record: "withdraw",
    id: "withdrawId",
  },
  [`POST ${A}/payout-batches/:id/refunds/:refundId/outcome`]: {
    action: "recordRefundPayoutOutcome",
    record: "refund",
    id: "refundId",
  },
  [`POST ${A}/operator-tokens`]: { action: "createOperatorToken", record: "operator_token", id: "response" },
  [`POST ${A}/operator-tokens/:id/revoke`]: {
    action: "revokeOperatorToken",
    record: "operator_token",
    id: "id",
  },

  "POST /api/v1/auth/login": { action: "logIn", record: "dashboard_user", id: "actor" },
  "POST /api/v1/auth/logout": { action: "logOut", record: "dashboard_user", id: "actor" },
  [`POST ${D}/clock/reset`]: { action: "resetClock", record: "merchant", id: "session-merchant" },
  [`POST ${D}/events/:id/redeliver`]: { action: "redeliverEvent", record: "event", id: "id" },
  [`POST ${D}/api-keys`]: { action: "createApiKey", record: "integration", id: "response" },
  [`PATCH ${D}/api-keys/:id`]: { action: "updateApiKey", record: "integration", id: "id" },
  [`DELETE ${D}/api-keys/:id`]: { action: "revokeApiKey", record: "integration", id: "id" },
  [`POST ${D}/webhook-endpoints`]: {
    action: "createWebhookEndpoint",
    record: "webhook_endpoint",
    id: "response",
  },
  [`POST ${D}/webhook-endpoints/:id/rotate-secret`]: {
    action: "rotateWebhookSecret",
    record: "webhook_endpoint",
    id: "id",
  },
  [`PATCH ${D}/webhook-endpoints/:id`]: {
    action: "updateWebhookEndpoint",
    record: "webhook_endpoint",
    id: "id",
  },
  [`DELETE ${D}/webhook-endpoints/:id`]: {
    action: "deleteWebhookEndpoint",
    record: "webhook_endpoint",
    id: "id",
  },
  [`POST ${D}/webhook-endpoints/:id/test`]: { action: "sendTestEvent", record: "webhook_endpoint", id: "id" },
  [`POST ${D}/payments/:id/refunds`]: {
    action: "createRefund",
    record: "refund",
    id: "response",
    inResult: "refund",
  },
  [`POST ${D}/users`]: { action: "createDashboardUser", record: "dashboard_user", id: "response" },
  [`PATCH ${D}/users/:id`]: { action: "changeUserRole", record: "dashboard_user", id: "id" },
  [`POST ${D}/two-factor/enrol`]: {
    action: "startTwoFactorEnrolment",
    record: "dashboard_user",
    id: "actor",
  },
  [`POST ${D}/two-factor/confirm`]: { action: "confirmTwoFactor", record: "dashboard_user", id: "actor" },
};
