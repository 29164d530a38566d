/**
 * The dashboard page at GET /dashboard and its files under /dashboard/assets/. The page is a
 * small HTML shell that loads one module, app.js; the browser loads the modules it imports
 * (views/*.js and the rest) by relative URL, with no build step. They talk to /api/v1/auth and
 * /dashboard/api.
 *
 * The files are the service's own (no CDN, no third-party front-end code) and are read once at
 * start. The Content-Security-Policy allows the page's own scripts, styles, images and API
 * calls and nothing else: no inline script, no eval, no framing, no form posting elsewhere.
 * Images may also be data: URLs: the two-factor enrolment's QR code arrives as one in the API's
 * answer (an image cannot run script, and no third party is reached).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import { thaiFontStylesheetHref } from "../http/fonts.ts";
import { readAssetFolder, sendAsset } from "../http/static-assets.ts";
import { sourceUrl } from "../lib/source-root.ts";

/** Every file of assets/ the browser may load, by path: "app.js", "views/payments.js", ... */
const ASSETS = readAssetFolder(sourceUrl("dashboard/assets/"));
/** The module the shell loads; it imports every other one. */
const ENTRY = "app.js";

const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "font-src 'self'",
  "img-src 'self' data:",
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

/** The path of PUBLIC_BASE_URL ("" at the root), so the page works behind a path prefix. */
function basePathOf(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).pathname.replace(/\/+$/, "");
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * The language to start in before the script has read the user's saved choice. The payout
 * desk's page (payout-desk/page-routes.ts) starts the same way.
 */
export function preferredLang(request: FastifyRequest): "en" | "th" {
  const header = request.headers["accept-language"] ?? "";
  const first = header.split(",")[0]?.trim().toLowerCase() ?? "";
  return first.startsWith("th") ? "th" : "en";
}

function assetUrl(basePath: string, name: string): string {
  return escapeAttribute(`${basePath}/dashboard/assets/${name}?v=${ASSETS.get(name)!.version}`);
}

/**
 * The other modules, announced up front so the browser fetches them side by side instead of
 * discovering them one import level at a time (a round trip per level on a phone's network).
 * Their URLs are exactly the ones the imports resolve to, without a version, so the preloaded
 * copy is the one the import uses.
 */
function modulePreloads(basePath: string): string {
  return [...ASSETS.keys()]
    .filter((name) => name.endsWith(".js") && name !== ENTRY)
    .map(
      (name) =>
        `<link rel="modulepreload" href="${escapeAttribute(`${basePath}/dashboard/assets/${name}`)}">`,
    )
    .join("\n");
}

function renderShell(basePath: string, lang: "en" | "th"): string {
  const url = (name: string) => assetUrl(basePath, name);
  const loading = lang === "th" ? "กำลังโหลด…" : "Loading…";
  return `<!doctype html>
<html lang="${lang}" data-base="${escapeAttribute(basePath)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${lang === "th" ? "แดชบอร์ด Satang" : "Satang Dashboard"}</title>
<link rel="icon" type="image/svg+xml" href="${url("icon.svg")}">
<link rel="stylesheet" href="${escapeAttribute(thaiFontStylesheetHref(basePath))}">
<link rel="stylesheet" href="${url("app.css")}">
<script type="module" src="${url(ENTRY)}"></script>
${modulePreloads(basePath)}
</head>
<body>
<div id="app"><p class="muted" role="status">${loading}</p></div>
<noscript><p>The dashboard needs JavaScript. แดชบอร์ดต้องเปิดใช้ JavaScript</p></noscript>
</body>
</html>
`;
}

export function dashboardPageRoutes(config: Pick<Config, "publicBaseUrl">): FastifyPluginAsync {
  return async (app) => {
    app.get("/", { schema: { hide: true } }, async (request, reply) =>
      securityHeaders(reply)
        .header("Content-Security-Policy", DASHBOARD_CSP)
        .header("Cache-Control", "no-store")
        .header("Vary", "Accept-Language")
        .type("text/html; charset=utf-8")
        .send(renderShell(basePathOf(config.publicBaseUrl), preferredLang(request))),
    );

    for (const [name, file] of ASSETS) {
      app.get(`/assets/${name}`, { schema: { hide: true } }, async (request, reply) => {
        // The modules import one another by plain relative URLs, which carry no version, so
        // every file is revalidated on each load (no-cache) and answered with 304 while it is
        // unchanged: the next load after a release runs the new release's files.
        securityHeaders(reply).header("Cache-Control", "no-cache");
        return sendAsset(request, reply, file);
      });
    }
  };
}
