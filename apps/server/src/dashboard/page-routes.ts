/**
 * The dashboard page at GET /dashboard and its files under /dashboard/assets/. The page is a
 * small HTML shell; app.js draws everything else and talks to /api/v1/auth and /dashboard/api.
 *
 * The files are the service's own (no CDN, no third-party front-end code) and are read once at
 * start. The Content-Security-Policy allows the page's own scripts, styles, images and API
 * calls and nothing else: no inline script, no eval, no framing, no form posting elsewhere.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Deps } from "../deps.ts";

interface Asset {
  body: string;
  type: string;
  /** Content hash: the ETag, and a version in the URLs the shell writes. */
  version: string;
}

function asset(name: string, type: string): Asset {
  const body = readFileSync(new URL(`./assets/${name}`, import.meta.url), "utf8");
  return { body, type, version: createHash("sha256").update(body).digest("hex").slice(0, 16) };
}

const ASSETS: Record<string, Asset> = {
  "app.js": asset("app.js", "text/javascript; charset=utf-8"),
  "i18n.js": asset("i18n.js", "text/javascript; charset=utf-8"),
  "app.css": asset("app.css", "text/css; charset=utf-8"),
  "icon.svg": asset("icon.svg", "image/svg+xml"),
};

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
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

/** The path of PUBLIC_BASE_URL ("" at the root), so the page works behind a path prefix. */
function basePathOf(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).pathname.replace(/\/+$/, "");
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The language to start in before the script has read the user's saved choice. */
function preferredLang(request: FastifyRequest): "en" | "th" {
  const header = request.headers["accept-language"] ?? "";
  const first = header.split(",")[0]?.trim().toLowerCase() ?? "";
  return first.startsWith("th") ? "th" : "en";
}

export function renderShell(basePath: string, lang: "en" | "th"): string {
  const url = (name: string) =>
    escapeAttribute(`${basePath}/dashboard/assets/${name}?v=${ASSETS[name]!.version}`);
  const loading = lang === "th" ? "กำลังโหลด…" : "Loading…";
  return `<!doctype html>
<html lang="${lang}" data-base="${escapeAttribute(basePath)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${lang === "th" ? "แดชบอร์ด Satang" : "Satang Dashboard"}</title>
<link rel="icon" type="image/svg+xml" href="${url("icon.svg")}">
<link rel="stylesheet" href="${url("app.css")}">
<script type="module" src="${url("app.js")}"></script>
</head>
<body>
<div id="app"><p class="muted" role="status">${loading}</p></div>
<noscript><p>The dashboard needs JavaScript. แดชบอร์ดต้องเปิดใช้ JavaScript</p></noscript>
</body>
</html>
`;
}

export function dashboardPageRoutes(deps: Deps): FastifyPluginAsync {
  return async (app) => {
    app.get("/", { schema: { hide: true } }, async (request, reply) =>
      securityHeaders(reply)
        .header("Content-Security-Policy", DASHBOARD_CSP)
        .header("Cache-Control", "no-store")
        .header("Vary", "Accept-Language")
        .type("text/html; charset=utf-8")
        .send(renderShell(basePathOf(deps.config.publicBaseUrl), preferredLang(request))),
    );

    for (const [name, file] of Object.entries(ASSETS)) {
      const etag = `"${file.version}"`;
      app.get(`/assets/${name}`, { schema: { hide: true } }, async (request, reply) => {
        // app.js imports i18n.js by a plain relative URL, so files are revalidated on every
        // load (no-cache) and answered with 304 while they are unchanged.
        securityHeaders(reply).header("Cache-Control", "no-cache").header("ETag", etag);
        if (request.headers["if-none-match"] === etag) return reply.code(304).send();
        return reply.type(file.type).send(file.body);
      });
    }
  };
}
