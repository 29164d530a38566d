/**
 * The payout desk page for operators, at GET /dashboard/payout-desk (docs/payout-desk.md). It is
 * the operator's side of the dashboard: a small HTML shell and one script (assets/desk.js) that
 * asks for the operator token (ADMIN_TOKEN) and calls the operator API under /admin/v1 with it,
 * as a Bearer token, like the CLI does. The token stays in the tab's sessionStorage only. It
 * speaks English and Thai (assets/i18n.js) like the dashboard, starting from the browser's
 * Accept-Language until the operator picks one.
 *
 * The files are the service's own (no CDN) and are read once at start. The Content-Security-
 * Policy allows the page's own script, style and API calls and nothing else.
 */
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import type { Config } from "../config.ts";
import { preferredLang } from "../dashboard/page-routes.ts";
import { thaiFontStylesheetHref } from "../http/fonts.ts";
import { readAssetFolder, sendAsset } from "../http/static-assets.ts";
import { sourceUrl } from "../lib/source-root.ts";

const ASSETS = readAssetFolder(sourceUrl("payout-desk/assets/"));

const DESK_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "font-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header("X-Content-Type-Options", "nosniff")
    .header("X-Frame-Options", "DENY")
    .header("Referrer-Policy", "no-referrer");
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The entry module; it imports the others, which are announced up front (modulepreload). */
const ENTRY = "desk.js";

function renderShell(basePath: string, lang: "en" | "th"): string {
  const url = (name: string) =>
    escapeAttribute(`${basePath}/dashboard/payout-desk/assets/${name}?v=${ASSETS.get(name)!.version}`);
  // The imports carry no version, so the preloads name exactly the URLs the imports resolve to.
  const preloads = [...ASSETS.keys()]
    .filter((name) => name.endsWith(".js") && name !== ENTRY)
    .map(
      (name) =>
        `<link rel="modulepreload" href="${escapeAttribute(`${basePath}/dashboard/payout-desk/assets/${name}`)}">`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="${lang}" data-base="${escapeAttribute(basePath)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${lang === "th" ? "ระบบจ่ายเงินถอน Satang" : "Satang payout desk"}</title>
<link rel="stylesheet" href="${escapeAttribute(thaiFontStylesheetHref(basePath))}">
<link rel="stylesheet" href="${url("desk.css")}">
<script type="module" src="${url(ENTRY)}"></script>
<script type="module" src="${url("undecided.js")}"></script>
${preloads}
</head>
<body>
<div id="app"><p role="status">${lang === "th" ? "กำลังโหลด…" : "Loading…"}</p></div>
<section id="undecided" aria-live="polite"></section>
<noscript><p>The payout desk needs JavaScript. ระบบจ่ายเงินถอนต้องเปิดใช้ JavaScript</p></noscript>
</body>
</html>
`;
}

export function payoutDeskPageRoutes(config: Pick<Config, "publicBaseUrl">): FastifyPluginAsync {
  const basePath = new URL(config.publicBaseUrl).pathname.replace(/\/+$/, "");
  return async (app) => {
    app.get("/", { schema: { hide: true } }, async (request, reply) =>
      securityHeaders(reply)
        .header("Content-Security-Policy", DESK_CSP)
        .header("Cache-Control", "no-store")
        .header("Vary", "Accept-Language")
        .type("text/html; charset=utf-8")
        .send(renderShell(basePath, preferredLang(request))),
    );
    for (const [name, file] of ASSETS) {
      app.get(`/assets/${name}`, { schema: { hide: true } }, async (request, reply) => {
        securityHeaders(reply).header("Cache-Control", "no-cache");
        return sendAsset(request, reply, file);
      });
    }
  };
}
