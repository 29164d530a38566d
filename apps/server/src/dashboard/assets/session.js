// @ts-check
// The session of this browser tab. Its token is kept in sessionStorage: it survives a reload
// but not closing the tab, and other tabs do not share it. The session ends at logout, when the
// server refuses its token, or when its expiresAt passes in this tab.

/** @import { MessageKey } from "./i18n.js" */

const SESSION_KEY = "satang.dashboard.session";
/** setTimeout's largest delay; a longer session simply re-arms the timer when it fires. */
const TIMER_MAX_MS = 2_147_483_647;

/** @typedef {{ token: string, expiresAt: string }} StoredSession */

/** @type {StoredSession | null} */
let session = readSession();
/** @type {ReturnType<typeof setTimeout> | undefined} */
let expiryTimer;
/** @type {(messageKey: MessageKey) => void} */
let onEnd = () => {};

/** @returns {StoredSession | null} */
function readSession() {
  try {
    const stored = JSON.parse(sessionStorage.getItem(SESSION_KEY) || "null");
    if (stored && typeof stored.token === "string" && Date.parse(stored.expiresAt) > Date.now()) {
      return { token: stored.token, expiresAt: stored.expiresAt };
    }
  } catch {
    // A damaged entry is the same as none.
  }
  sessionStorage.removeItem(SESSION_KEY);
  return null;
}

/** @returns {StoredSession | null} */
export function currentSession() {
  return session;
}

/**
 * What happens when the session ends (the login form, with a message saying why).
 * @param {(messageKey: MessageKey) => void} listener
 */
export function onSessionEnd(listener) {
  onEnd = listener;
}

/**
 * Keeps a session that the login just opened.
 * @param {StoredSession} started
 */
export function startSession(started) {
  session = { token: started.token, expiresAt: started.expiresAt };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  armExpiryTimer();
}

/** Ends the session in this tab when its expiresAt passes, even if no request is made. */
export function armExpiryTimer() {
  clearTimeout(expiryTimer);
  if (!session) return;
  const left = Date.parse(session.expiresAt) - Date.now();
  expiryTimer = setTimeout(
    () => {
      if (session && Date.parse(session.expiresAt) <= Date.now()) endSession("sessionExpired");
      else armExpiryTimer();
    },
    Math.min(Math.max(left, 0), TIMER_MAX_MS),
  );
}

/**
 * Forgets the session and tells the listener why it ended.
 * @param {MessageKey} messageKey
 */
export function endSession(messageKey) {
  clearTimeout(expiryTimer);
  session = null;
  sessionStorage.removeItem(SESSION_KEY);
  onEnd(messageKey);
}
