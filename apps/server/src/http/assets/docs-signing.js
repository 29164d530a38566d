// @ts-check
/**
 * Sandbox /docs: signs "Try it out" requests in the browser. Served as a theme script of the
 * docs page (only in sandbox); Swagger UI's requestInterceptor calls `window.satangSign` for
 * every request it sends.
 *
 * The API key and secret are typed into the box this script adds above the operations. They
 * live in this page's memory only: never sent (only the signature and the key go out, as the
 * API wants), never stored (no cookie, no localStorage), gone when the page closes. Signing is
 * signature v2 (docs/authentication.md): hex HMAC-SHA256(secret, timestamp + "." + METHOD +
 * "." + path with query + "." + body), computed with WebCrypto.
 */

/**
 * A request as Swagger UI hands it to the interceptor.
 * @typedef {object} UiRequest
 * @property {string} url
 * @property {string} [method]
 * @property {Record<string, string>} [headers]
 * @property {unknown} [body]
 */

/** @param {ArrayBuffer} buffer */
function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * @param {string} secret
 * @param {string} message
 */
async function hmacSha256Hex(secret, message) {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

/**
 * @param {string} labelText
 * @param {string} id
 * @param {string} type
 */
function field(labelText, id, type) {
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = labelText;
  label.style.cssText = "display:flex;flex-direction:column;gap:.25rem;font-weight:600;flex:1 1 16rem";
  const input = document.createElement("input");
  input.id = id;
  input.type = type;
  input.autocomplete = "off";
  input.spellcheck = false;
  input.style.cssText = "font:14px monospace;padding:.4rem;border:1px solid #999;border-radius:4px";
  label.append(input);
  return { label, input };
}

/** The "Sign requests" box; returns its two inputs. */
function signingBox() {
  const box = document.createElement("section");
  box.id = "satang-signing";
  box.setAttribute("aria-labelledby", "satang-signing-title");
  box.style.cssText =
    "max-width:1460px;margin:1rem auto 0;padding:1rem 20px;font-family:sans-serif;background:#fffaf0;border:2px dashed #b76e00;border-radius:8px;box-sizing:border-box";
  const title = document.createElement("h2");
  title.id = "satang-signing-title";
  title.textContent = "Sign requests (sandbox)";
  title.style.cssText = "margin:0 0 .5rem;font-size:1.1rem";
  const note = document.createElement("p");
  note.textContent =
    "Type an API key and its secret: every Try it out request to /api/v1 is then signed here, in this " +
    "browser, with HMAC-SHA256 (signature v2). The secret never leaves this page and is not stored.";
  note.style.cssText = "margin:0 0 .75rem";
  const row = document.createElement("div");
  row.style.cssText = "display:flex;flex-wrap:wrap;gap:1rem";
  const key = field("API key", "satang-api-key", "text");
  const secret = field("API secret", "satang-api-secret", "password");
  row.append(key.label, secret.label);
  const status = document.createElement("p");
  status.id = "satang-signing-status";
  status.setAttribute("role", "status");
  status.style.cssText = "margin:.75rem 0 0;font-size:.9rem";
  box.append(title, note, row, status);
  const root = document.getElementById("swagger-ui");
  root?.parentElement?.insertBefore(box, root);
  return { key: key.input, secret: secret.input, status };
}

const box = signingBox();

/**
 * Adds the three authentication headers to a request for this server's /api/v1, when a key and
 * secret are typed in. The body is signed exactly as it will be sent.
 * @param {UiRequest} request
 * @returns {Promise<UiRequest>}
 */
async function satangSign(request) {
  const apiKey = box.key.value.trim();
  const secret = box.secret.value;
  const url = new URL(request.url, location.href);
  if (!apiKey || !secret || url.origin !== location.origin || !url.pathname.startsWith("/api/v1/")) {
    return request;
  }
  let body = "";
  if (typeof request.body === "string") body = request.body;
  else if (request.body !== undefined && request.body !== null) {
    body = JSON.stringify(request.body);
    request.body = body;
  }
  const method = (request.method ?? "GET").toUpperCase();
  const timestamp = String(Date.now());
  const signature = await hmacSha256Hex(
    secret,
    `${timestamp}.${method}.${url.pathname}${url.search}.${body}`,
  );
  request.headers = {
    ...request.headers,
    "X-API-Key": apiKey,
    "X-Timestamp": timestamp,
    "X-Signature": `v2=${signature}`,
  };
  // What was signed and the signature, so a developer can check their own code's against it
  // (signature v2: the message is timestamp.METHOD.path with query.body; docs/authentication.md).
  box.status.textContent =
    `Signed ${method} ${url.pathname} at ${new Date(Number(timestamp)).toISOString()}: ` +
    `X-Timestamp ${timestamp}, X-Signature v2=${signature} (HMAC-SHA256 of ` +
    `"${timestamp}.${method}.${url.pathname}${url.search}.${body.length > 80 ? `${body.slice(0, 80)}...` : body}")`;
  return request;
}

/** @type {any} */ (window).satangSign = satangSign;
