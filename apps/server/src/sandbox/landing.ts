/**
 * GET / in sandbox: a small page for someone who just started the server and opened its address
 * in a browser. It links to the docs, the dashboard and the OpenAPI document, says how to get
 * into the dashboard (the demo login printed at first start, or `satang user create`), and shows
 * the shape of a first signed request with placeholders: the demo merchant's key, secret and
 * password appear only in the first-start output, never on a page. In live, GET / is an unknown route (envelope 404).
 */
import type { FastifyPluginAsync } from "fastify";
import type { Config } from "../config.ts";
import { curlExample } from "../lib/curl-example.ts";
import { DEMO_LOGIN_EMAIL } from "./demo.ts";

const LANDING_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'";

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

export function landingPage(config: Pick<Config, "publicBaseUrl">): string {
  const curl = curlExample(config.publicBaseUrl, "<your API key>", "<your API secret>");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Satang (sandbox)</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #1a1a1a; }
pre { background: #f4f4f4; padding: 0.75rem; overflow-x: auto; font-size: 0.85rem; }
li { margin: 0.25rem 0; }
</style>
</head>
<body>
<h1>Satang sandbox</h1>
<p>This server is running in sandbox: no real money moves.</p>
<ul>
<li><a href="/docs">API documentation</a> (try signed requests in the browser)</li>
<li><a href="/dashboard">Merchant dashboard</a></li>
<li><a href="/api/v1/openapi.json">OpenAPI document</a></li>
</ul>
<h2>Dashboard</h2>
<p>The <a href="/dashboard">dashboard</a> shows a merchant's payments, withdraws, events and
webhook endpoints. At its first start the server created a dashboard login for the demo
merchant and printed its email (<code>${escapeHtml(DEMO_LOGIN_EMAIL)}</code>) and a generated password,
once, in its output, beside the API key. For another login, or for another merchant, run (from
the repository, with the server running):</p>
<pre><code>npx satang user create --merchant &lt;merchant id&gt; --email you@example.com --password &lt;at least 12 characters&gt;</code></pre>
<p>The demo merchant's id is in that same output; <code>npx satang merchant create</code> makes new
merchants.</p>
<h2>First request</h2>
<p>The demo merchant's API key and secret were printed once, in the server's output at its
first start. Put them in place of the placeholders and paste this into a shell to create a PromptPay
payment of 100.00 THB (amounts are in satang: "10000.00"):</p>
<pre><code>${escapeHtml(curl)}</code></pre>
</body>
</html>
`;
}

/** GET / in sandbox; nothing in live, where / stays an unknown route (envelope 404). */
export function landingRoutes(config: Config): FastifyPluginAsync {
  const page = landingPage(config);
  return async (app) => {
    if (config.env !== "sandbox") return;
    app.get("/", { schema: { hide: true } }, async (_request, reply) =>
      reply
        .header("content-type", "text/html; charset=utf-8")
        .header("content-security-policy", LANDING_CSP)
        .header("cache-control", "no-store")
        .send(page),
    );
  };
}
