// @ts-check
// The shapes of what the dashboard API answers (docs/dashboard.md), for the type check of the
// modules that read them. They mirror the public API's record schemas, which the dashboard
// routes reuse. Statuses, methods and event types are plain strings here: their lists come from
// the server at run time (GET /dashboard/api/constants), so the page never keeps a copy.
// This module has no code: the other modules name its types in JSDoc `@import` comments.

/**
 * A list page of the API: `{ data, total, page, limit, totalPages }`.
 * @template T
 * @typedef {object} Page
 * @property {T[]} data
 * @property {number} total
 * @property {number} page
 * @property {number} limit
 * @property {number} totalPages
 */

/**
 * @typedef {object} User
 * @property {string} id
 * @property {string} merchantId
 * @property {string} email
 * @property {"owner" | "developer" | "finance"} role
 * @property {boolean} twoFactorEnabled
 * @property {string} createdAt
 */

/**
 * The answer of POST /api/v1/auth/login.
 * @typedef {object} LoginAnswer
 * @property {string} token
 * @property {string} expiresAt
 * @property {User} user
 */

/**
 * The merchant's sandbox test clock (GET /dashboard/api/clock).
 * @typedef {object} TestClock
 * @property {string} now the merchant's business time
 * @property {number} offsetSeconds how far it runs ahead of real time
 */

/**
 * GET /dashboard/api/me: who is signed in, for which merchant, until when.
 * @typedef {object} Me
 * @property {User} user
 * @property {{ id: string, name: string }} merchant
 * @property {"sandbox" | "live"} environment
 * @property {string} expiresAt
 * @property {boolean} twoFactorRequired an owner in live who must enrol first
 */

/**
 * One entry of the merchant's audit log.
 * @typedef {object} AuditEntry
 * @property {string} id
 * @property {string} createdAt
 * @property {string} actorName
 * @property {string} via
 * @property {string} action
 * @property {string} recordType
 * @property {string | null} recordId
 * @property {string | null} clientAddress null for an operator's action (the operator's address is not shown)
 */

/**
 * Balances are whole numbers of satang (not wire amounts).
 * @typedef {object} Balance
 * @property {number} walletBalance
 * @property {number} settlementBalance
 * @property {string} currency
 * @property {string} status
 */

/**
 * Amounts are wire amounts: decimal strings of satang ("123450.00" is 1,234.50 THB).
 * @typedef {object} Payment
 * @property {string} id
 * @property {string} amount
 * @property {string} currency
 * @property {string} status
 * @property {string | null} paymentMethod
 * @property {string} referenceId
 * @property {string | null} description
 * @property {Record<string, string> | null} metadata
 * @property {string | null} confirmedAt
 * @property {string | null} capturedAt
 * @property {string | null} canceledAt
 * @property {string | null} expiresAt
 * @property {string} createdAt
 * @property {string} updatedAt
 */

/**
 * A refund of a payment; its destination account number arrives masked.
 * @typedef {object} Refund
 * @property {string} id
 * @property {string} paymentId
 * @property {string} amount
 * @property {string} status
 * @property {string} referenceId
 * @property {string | null} reason
 * @property {string | null} failureReason
 * @property {{ bankCode: string, accountNumber: string, accountName: string }} destination
 * @property {string} createdAt
 */

/**
 * The account number arrives masked: all but its last four digits are "*".
 * @typedef {object} Withdraw
 * @property {string} id
 * @property {string} amount
 * @property {string} currency
 * @property {string} status
 * @property {string} referenceId
 * @property {string} destinationType
 * @property {string | null} bankAccountNumber
 * @property {string | null} bankAccountName
 * @property {string | null} bankCode
 * @property {string | null} destinationId
 * @property {string | null} description
 * @property {Record<string, string> | null} metadata
 * @property {string | null} paidAt
 * @property {string | null} canceledAt
 * @property {string} createdAt
 * @property {string} updatedAt
 */

/**
 * One event about a payment or withdraw, in its timeline.
 * @typedef {object} TimelineEntry
 * @property {string} id
 * @property {string} type
 * @property {string} createdAt
 */

/** @typedef {{ name: string, accountNumber: string, bankCode: string }} PaymentCustomer */
/**
 * @typedef {{ payment: Payment, customer: PaymentCustomer, hostedPageUrl: string,
 *   transferReference: string | null, timeline: TimelineEntry[] }} PaymentDetail
 */
/** @typedef {{ withdraw: Withdraw, timeline: TimelineEntry[] }} WithdrawDetail */

/**
 * An event as the events list shows it; `data.object` is the payment or withdraw as it was.
 * @typedef {object} WebhookEvent
 * @property {string} id
 * @property {string} type
 * @property {string} createdAt
 * @property {{ object: { id?: string, referenceId?: string, paymentId?: string } & Record<string, unknown> }} data
 */

/**
 * @typedef {object} DeliveryAttempt
 * @property {number} attemptNumber
 * @property {boolean} succeeded
 * @property {number | null} statusCode
 * @property {number} durationMs
 * @property {string | null} error
 * @property {string | null} [errorCode] a code of the server's closed list (docs/webhooks.md)
 * @property {string | null} [responseExcerpt] the start of the receiver's answer (at most 1 KB)
 * @property {string} startedAt
 * @property {string} finishedAt
 * @property {string | null} nextRetryAt
 */

/**
 * @typedef {object} Delivery
 * @property {string} id
 * @property {string} endpointId
 * @property {string} status
 * @property {number} attemptCount
 * @property {string | null} nextAttemptAt
 * @property {number | null} lastStatusCode
 * @property {string | null} lastError
 * @property {string} createdAt
 * @property {string | null} completedAt
 * @property {DeliveryAttempt[]} attempts
 */

/**
 * A delivery in the list of every delivery: without its attempts, with its event's type and its
 * endpoint's address (a deleted endpoint's too).
 * @typedef {Omit<Delivery, "attempts"> & { eventId: string, eventType: string, endpointUrl: string }} ListedDelivery
 */

/** @typedef {WebhookEvent & { deliveries: Delivery[] }} EventWithDeliveries */
/** @typedef {{ eventId: string, deliveries: Delivery[] }} Redelivery */

/**
 * Never a secret: the API does not list them.
 * @typedef {object} WebhookEndpoint
 * @property {string} id
 * @property {string} url
 * @property {string[]} events
 * @property {string | null} description
 * @property {boolean} disabled true while it receives no events
 * @property {string | null} disabledAt
 * @property {string | null} previousSecretExpiresAt
 * @property {string} createdAt
 * @property {string} updatedAt
 */

/** @typedef {WebhookEndpoint & { secret: string }} WebhookEndpointWithSecret */

/**
 * One Bangkok day of GET /dashboard/api/volume; amounts in satang.
 * @typedef {object} DayVolume
 * @property {string} date
 * @property {number} paymentsCount
 * @property {string} paymentsAmount
 * @property {number} refundsCount
 * @property {string} refundsAmount
 * @property {string} netAmount paymentsAmount less refundsAmount; below zero on a day of refunds only
 * @property {number} withdrawsCount
 * @property {string} withdrawsAmount
 */

/**
 * @typedef {object} SearchHit
 * @property {"payment" | "withdraw"} type
 * @property {string} id
 * @property {string} referenceId
 */

/**
 * POST /dashboard/api/webhook-endpoints/{id}/test: one signed ping, sent at once.
 * @typedef {object} WebhookTestResult
 * @property {string} id
 * @property {string} endpointId
 * @property {boolean} succeeded
 * @property {number | null} statusCode
 * @property {string | null} error
 * @property {number} durationMs
 * @property {string} sentAt
 */

/**
 * An API key (an integration) of the merchant; revoked ones are listed too.
 * @typedef {object} ApiKey
 * @property {string} id
 * @property {string} merchantId
 * @property {string | null} name
 * @property {string} apiKey
 * @property {"sandbox" | "live"} environment
 * @property {string | null} redirectUrl
 * @property {boolean} requireSignatureV2
 * @property {string | null} revokedAt
 * @property {string} createdAt
 */

/**
 * A key just created: its secret is in this answer only.
 * @typedef {ApiKey & { apiSecret: string }} CreatedApiKey
 */

/**
 * @typedef {object} Bank
 * @property {string} code
 * @property {string} shortName
 * @property {string} name
 * @property {string} nameTh
 */

/**
 * GET /dashboard/api/constants: the server's own lists.
 * @typedef {object} Constants
 * @property {string[]} paymentStatuses
 * @property {string[]} paymentMethods
 * @property {string[]} paymentSortFields
 * @property {string[]} withdrawStatuses
 * @property {string[]} destinationTypes
 * @property {string[]} withdrawSortFields
 * @property {string[]} refundStatuses
 * @property {string[]} refundSortFields
 * @property {string[]} eventTypes
 * @property {string[]} webhookDeliveryStatuses
 * @property {string[]} walletStatuses
 * @property {number} pageSizeDefault
 * @property {number} pageSizeMax
 * @property {Bank[]} banks
 */

export {};
