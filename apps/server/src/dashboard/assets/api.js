// @ts-check
// The server, as the dashboard calls it: one typed function per route, so the views never
// spell a URL. Dashboard routes carry the session token; a 401 from any of them ends the
// session (the login form comes back with a message) and the call rejects with SessionEnded.

/**
 * @import { ApiKey, AuditEntry, ListedDelivery, User, Balance, Constants, CreatedApiKey, DayVolume, SearchHit, EventWithDeliveries, LoginAnswer, Me,
 *   Page, Payment, PaymentDetail, Redelivery, Refund, TestClock, WebhookEndpoint, WebhookEndpointWithSecret, WebhookEvent, WebhookTestResult,
 *   Withdraw,
 *   WithdrawDetail } from "./types.js"
 */
import { currentRole, roleName } from "./account.js";
import { t } from "./lang.js";
import { currentSession, endSession } from "./session.js";

/** The path of the service's public address, so the page works behind a path prefix. */
const BASE = document.documentElement.dataset.base || "";
const DASHBOARD_API = `${BASE}/dashboard/api`;

/** A call refused by the server, or one that never reached it (code "NETWORK", status 0). */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string | undefined} message
   * @param {Record<string, unknown> | undefined} metadata
   * @param {number} [retryAfter]
   */
  constructor(status, code, message, metadata, retryAfter) {
    super(message || code);
    this.status = status;
    this.code = code;
    this.metadata = metadata || {};
    /** Seconds to wait before trying again (a 429's or a 503's Retry-After); undefined if none. */
    this.retryAfter = retryAfter;
  }
}

/** The session ended during the call: the login form is already on screen. */
export class SessionEnded extends Error {}

/**
 * The whole seconds a refused request says to wait (its Retry-After header); undefined when it
 * says none or a date the page does not read.
 * @param {Response} response
 * @returns {number | undefined}
 */
function retryAfterOf(response) {
  const header = response.headers.get("retry-after");
  if (!header || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

/**
 * One request; resolves with the envelope's data, rejects with ApiError.
 * @param {string} url
 * @param {string} method
 * @param {unknown} [body]
 * @param {string} [token]
 * @returns {Promise<unknown>}
 */
async function request(url, method, body, token) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  /** @type {Response} */
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "NETWORK", t("networkError"), undefined);
  }
  const json = await response.json().catch(() => null);
  if (json?.success === true) return json.data;
  const error = json?.error || {};
  throw new ApiError(
    response.status,
    error.code || `HTTP_${response.status}`,
    error.message,
    error.metadata,
    retryAfterOf(response),
  );
}

/**
 * A dashboard API call with the session; a refused session returns the user to the login.
 * @param {string} method
 * @param {string} path under /dashboard/api
 * @param {unknown} [body]
 * @returns {Promise<unknown>}
 */
async function dashboard(method, path, body) {
  const session = currentSession();
  if (!session) throw new SessionEnded();
  try {
    return await request(`${DASHBOARD_API}${path}`, method, body, session.token);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      endSession("sessionExpired");
      throw new SessionEnded();
    }
    throw error;
  }
}

/** @param {string} id */
const part = (id) => encodeURIComponent(id);

/**
 * @param {string} email
 * @param {string} password
 * @param {string} [otp] the authenticator's code, when two-factor login is on
 */
export const login = (email, password, otp) =>
  /** @type {Promise<LoginAnswer>} */ (
    request(`${BASE}/api/v1/auth/login`, "POST", otp ? { email, password, otp } : { email, password })
  );

/**
 * The merchant's users (owners only), adding one, and changing a role. The list is paged like
 * every list; the Users page shows the first 100, oldest first (a merchant has a handful).
 */
export const listUsers = () => /** @type {Promise<Page<User>>} */ (dashboard("GET", "/users?limit=100"));
/** @param {{ email: string, password: string, role: string }} body */
export const createUser = (body) => /** @type {Promise<User>} */ (dashboard("POST", "/users", body));
/**
 * @param {string} id
 * @param {string} role
 */
export const changeUserRole = (id, role) =>
  /** @type {Promise<User>} */ (dashboard("PATCH", `/users/${part(id)}`, { role }));

/** Two-factor enrolment of the signed-in user. */
export const startTwoFactor = () =>
  /** @type {Promise<{ secret: string, otpauthUri: string, qrCode: string }>} */ (
    dashboard("POST", "/two-factor/enrol", {})
  );
/** @param {string} otp */
export const confirmTwoFactor = (otp) =>
  /** @type {Promise<User>} */ (dashboard("POST", "/two-factor/confirm", { otp }));

/** @param {URLSearchParams} query */
export const listAuditLog = (query) =>
  /** @type {Promise<Page<AuditEntry>>} */ (dashboard("GET", `/audit-log?${query.toString()}`));

/** @param {string} token */
export const logout = (token) => request(`${BASE}/api/v1/auth/logout`, "POST", undefined, token);

/** The server's lists; public, so it is fetched without the session. */
export const getConstants = () =>
  /** @type {Promise<Constants>} */ (request(`${DASHBOARD_API}/constants`, "GET"));

export const getMe = () => /** @type {Promise<Me>} */ (dashboard("GET", "/me"));

/** Sandbox only: the merchant's test clock, and bringing it back to real time. */
export const getTestClock = () => /** @type {Promise<TestClock>} */ (dashboard("GET", "/clock"));
export const resetTestClock = () => /** @type {Promise<TestClock>} */ (dashboard("POST", "/clock/reset"));
export const getBalance = () => /** @type {Promise<Balance>} */ (dashboard("GET", "/balance"));

/** @param {URLSearchParams} query */
export const listPayments = (query) =>
  /** @type {Promise<Page<Payment>>} */ (dashboard("GET", `/payments?${query}`));
/** @param {string} id */
export const getPayment = (id) =>
  /** @type {Promise<PaymentDetail>} */ (dashboard("GET", `/payments/${part(id)}`));

/** @param {string} id */
export const listPaymentRefunds = (id) =>
  /** @type {Promise<Page<Refund>>} */ (
    dashboard("GET", `/payments/${part(id)}/refunds?limit=100&sortOrder=asc`)
  );
/**
 * @param {string} id the payment
 * @param {{ amount: string, referenceId: string, reason?: string }} body
 */
export const createRefund = (id, body) =>
  /** @type {Promise<Refund>} */ (dashboard("POST", `/payments/${part(id)}/refunds`, body));

/** @param {URLSearchParams} query */
export const listRefunds = (query) =>
  /** @type {Promise<Page<Refund>>} */ (dashboard("GET", `/refunds?${query}`));

/** @param {URLSearchParams} query */
export const listWithdraws = (query) =>
  /** @type {Promise<Page<Withdraw>>} */ (dashboard("GET", `/withdraws?${query}`));
/** @param {string} id */
export const getWithdraw = (id) =>
  /** @type {Promise<WithdrawDetail>} */ (dashboard("GET", `/withdraws/${part(id)}`));

/** @param {URLSearchParams} query */
export const listEvents = (query) =>
  /** @type {Promise<Page<WebhookEvent>>} */ (dashboard("GET", `/events?${query}`));
/** @param {URLSearchParams} query */
export const listDeliveries = (query) =>
  /** @type {Promise<Page<ListedDelivery>>} */ (dashboard("GET", `/webhook-deliveries?${query}`));
/** @param {string} id */
export const getEvent = (id) =>
  /** @type {Promise<EventWithDeliveries>} */ (dashboard("GET", `/events/${part(id)}`));
/** @param {string} id */
export const redeliverEvent = (id) =>
  /** @type {Promise<Redelivery>} */ (dashboard("POST", `/events/${part(id)}/redeliver`));

export const listWebhookEndpoints = () =>
  /** @type {Promise<Page<WebhookEndpoint>>} */ (dashboard("GET", "/webhook-endpoints?limit=100"));
/** @param {{ url: string, events: string[], description?: string }} body */
export const createWebhookEndpoint = (body) =>
  /** @type {Promise<WebhookEndpointWithSecret>} */ (dashboard("POST", "/webhook-endpoints", body));
/** @param {string} id */
export const rotateWebhookSecret = (id) =>
  /** @type {Promise<WebhookEndpointWithSecret>} */ (
    dashboard("POST", `/webhook-endpoints/${part(id)}/rotate-secret`, {})
  );
/**
 * @param {string} id
 * @param {boolean} disabled
 */
export const setWebhookEndpointDisabled = (id, disabled) =>
  /** @type {Promise<WebhookEndpoint>} */ (
    dashboard("PATCH", `/webhook-endpoints/${part(id)}`, { disabled })
  );
/** @param {string} id */
export const deleteWebhookEndpoint = (id) => dashboard("DELETE", `/webhook-endpoints/${part(id)}`);
/** @param {string} id */
export const sendWebhookTest = (id) =>
  /** @type {Promise<WebhookTestResult>} */ (dashboard("POST", `/webhook-endpoints/${part(id)}/test`, {}));

export const getVolume = () => /** @type {Promise<{ days: DayVolume[] }>} */ (dashboard("GET", "/volume"));
/** @param {string} q */
export const searchRecords = (q) =>
  /** @type {Promise<{ hits: SearchHit[] }>} */ (dashboard("GET", `/search?${new URLSearchParams({ q })}`));

export const listApiKeys = () =>
  /** @type {Promise<Page<ApiKey>>} */ (dashboard("GET", "/api-keys?limit=100"));
/** @param {string} name empty for a key without a name */
export const createApiKey = (name) =>
  /** @type {Promise<CreatedApiKey>} */ (dashboard("POST", "/api-keys", name ? { name } : {}));
/** @param {string} id */
export const revokeApiKey = (id) => dashboard("DELETE", `/api-keys/${part(id)}`);
/**
 * Sets whether the key refuses v1 signatures (from its next request).
 * @param {string} id
 * @param {boolean} requireSignatureV2
 */
export const setKeySignatureRule = (id, requireSignatureV2) =>
  /** @type {Promise<ApiKey>} */ (dashboard("PATCH", `/api-keys/${part(id)}`, { requireSignatureV2 }));

/** @typedef {"payments" | "withdraws" | "refunds" | "ledger"} ExportKind */

/**
 * A CSV export of the session's merchant (GET /dashboard/api/reports/<kind>.csv), as a file to
 * save. A refusal arrives in the JSON envelope, before any CSV, and rejects with ApiError.
 * @param {ExportKind} kind
 * @param {URLSearchParams} query dateFrom, dateTo and filters
 * @returns {Promise<{ blob: Blob, filename: string }>}
 */
export async function downloadExport(kind, query) {
  const session = currentSession();
  if (!session) throw new SessionEnded();
  /** @type {Response} */
  let response;
  try {
    response = await fetch(`${DASHBOARD_API}/reports/${kind}.csv?${query}`, {
      headers: { authorization: `Bearer ${session.token}` },
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "NETWORK", t("networkError"), undefined);
  }
  if (response.ok) {
    const disposition = response.headers.get("content-disposition") || "";
    const filename = /filename="([^"]+)"/.exec(disposition)?.[1] || `${kind}.csv`;
    return { blob: await response.blob(), filename };
  }
  const error = (await response.json().catch(() => null))?.error || {};
  if (response.status === 401) {
    endSession("sessionExpired");
    throw new SessionEnded();
  }
  throw new ApiError(response.status, error.code || `HTTP_${response.status}`, error.message, error.metadata);
}

/**
 * How long to wait, in seconds, before trying a refused request again: its Retry-After, else a
 * rate limit's own `retryAfter`, else one second.
 * @param {ApiError} error
 */
function waitOf(error) {
  const fromMetadata = error.metadata?.retryAfter;
  const seconds = error.retryAfter ?? (typeof fromMetadata === "number" ? fromMetadata : 1);
  return Math.max(1, Math.ceil(seconds));
}

/**
 * What to tell the user about a failed call: the refusals a person can act on by name, a
 * field's refusal as a list's filter (`context` "filter", the default) or a form's field
 * ("form"), and anything else by its code.
 * @param {unknown} error
 * @param {"filter" | "form"} [context]
 * @returns {string}
 */
export function describeError(error, context = "filter") {
  if (!(error instanceof ApiError)) return t("requestFailed", { code: "ERROR" });
  const field = error.metadata?.field;
  const reason = error.metadata?.reason;
  if (error.code === "NETWORK") return t("networkError");
  if (error.status === 429) return t("rateLimited", { seconds: waitOf(error) });
  if (error.status === 503) return t("serviceBusy", { seconds: waitOf(error) });
  if (error.code === "VALIDATION_ERROR" && field === "otp") return t("otpWrong");
  if (error.code === "STATE_CONFLICT" && reason === "email_taken") return t("emailTaken");
  if (error.code === "STATE_CONFLICT" && reason === "last_owner") return t("lastOwner");
  if (error.code === "FORBIDDEN" && reason === "two_factor_enrolment_required") {
    return t("twoFactorRequiredNote");
  }
  if (error.code === "FORBIDDEN") return t("roleForbidden", { role: roleName(currentRole()) });
  if (error.code === "VALIDATION_ERROR" && field) {
    // A form's field is told with the server's reason (in English, as the API answers it).
    if (context === "form")
      return t("invalidFormField", { field: String(field), detail: error.message.replace(/\.$/, "") });
    return t("invalidFilter", { field: String(field) });
  }
  return t("requestFailed", { code: error.code });
}
