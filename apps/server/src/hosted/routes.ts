/**
 * The hosted payment page (`paymentAppUrl` = PUBLIC_BASE_URL/pay/{id}) and what it uses: the
 * PNG of the PromptPay QR (`qrCode.imageUrl`), its script, the status route it polls, and in
 * sandbox the route behind its "simulate customer payment" button. No API key anywhere: the
 * customer holds only the link, and the link is enough. The page shows what the customer needs
 * to pay (merchant name, amount, QR or transfer details, time left, status) and nothing else of
 * the merchant's.
 *
 * Every URL the page uses is root-relative under the path of PUBLIC_BASE_URL, so the page works
 * behind a proxy that mounts the service under a prefix, and its Content-Security-Policy can
 * allow only 'self'.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { Config } from "../config.ts";
import { emptyBodyAsObject, rejectUnparsedBody } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import type { App } from "../http/typed-app.ts";
import { isAppError } from "../lib/errors.ts";
import { sourceUrl } from "../lib/source-root.ts";
import type { LifecycleContext } from "../lifecycle/context.ts";
import { chooseLang, type Lang } from "./i18n.ts";
import { PAGE_CSS_HASH, renderNotFoundPage, renderPaymentPage } from "./page.ts";
import { getHostedStatus, hostedQrPng, loadHostedPayment, simulateHostedPayment } from "./service.ts";

/** The client secret is `<uuid>_secret_<32 base64url characters>`; anything far longer is not one. */
const CLIENT_SECRET_LENGTH_MAX = 200;
/** The header the page sends the client secret in, so that it stays out of URLs and access logs. */
const CLIENT_SECRET_HEADER = "x-client-secret";

const HostedParams = Type.Object({ id: Type.String({ description: "Payment UUID" }) });
/**
 * The simulate route's body is empty (or `{}`): the secret travels in the header only, so that
 * no body, URL or access log holds it.
 */
const SimulateBody = Type.Object({}, { additionalProperties: false });

interface Asset {
  body: string;
  type: string;
  /** A version in the asset's URL: a new release is a new URL, so the asset can be cached. */
  version: string;
}

function asset(name: string, type: string): Asset {
  const body = readFileSync(sourceUrl(`hosted/assets/${name}`), "utf8");
  return { body, type, version: createHash("sha256").update(body).digest("hex").slice(0, 16) };
}

/** The page's own files, read once at start: its only script, and its icon. */
const ASSETS: Record<string, Asset> = {
  "page.js": asset("page.js", "text/javascript; charset=utf-8"),
  "icon.svg": asset("icon.svg", "image/svg+xml"),
};

const assetUrl = (basePath: string, name: string) =>
  `${basePath}/pay/assets/${name}?v=${ASSETS[name]?.version ?? ""}`;

/**
 * The page loads its own script, image and status route and nothing else, runs no inline
 * script, allows exactly its own inline style sheet, cannot be framed (clickjacking of the
 * sandbox button, or of a customer reading the transfer details), and is never cached, since
 * the status it shows changes.
 */
const pageCsp = (imageOrigin: string | null) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "connect-src 'self'",
    // A connector's own QR image is loaded from its origin, and from no other.
    imageOrigin === null ? "img-src 'self'" : `img-src 'self' ${imageOrigin}`,
    `style-src 'self' ${PAGE_CSS_HASH}`,
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");

/** The origin of a connector's QR image, for the page's img-src; null when it has none or it is not https/http. */
function imageOriginOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.origin : null;
  } catch {
    return null;
  }
}

function htmlHeaders(reply: FastifyReply, lang: Lang, imageOrigin: string | null = null): FastifyReply {
  return reply
    .header("Content-Security-Policy", pageCsp(imageOrigin))
    .header("X-Content-Type-Options", "nosniff")
    .header("X-Frame-Options", "DENY")
    .header("Referrer-Policy", "no-referrer")
    .header("Cache-Control", "no-store")
    .header("Content-Language", lang)
    .header("Vary", "Accept-Language")
    .type("text/html; charset=utf-8");
}

/** Browsers get a page for an unknown payment; API clients and tests get the error envelope. */
function wantsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? "").includes("text/html");
}

/** The path of PUBLIC_BASE_URL ("" at the root), which every URL on the page starts with. */
function basePathOf(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).pathname.replace(/\/+$/, "");
}

/**
 * The client secret the caller sent, from the `X-Client-Secret` header and nowhere else (a
 * `?clientSecret=` query would land in access logs and proxies, so it is not read); undefined
 * when none was sent (an empty header is none). A value far longer than any secret is sent on
 * cut short, so that it is compared (and refused) in bounded time.
 */
function clientSecretOf(request: FastifyRequest): string | undefined {
  const header = request.headers[CLIENT_SECRET_HEADER];
  if (typeof header !== "string" || header === "") return undefined;
  return header.slice(0, CLIENT_SECRET_LENGTH_MAX + 1);
}

/** What the page uses: the lifecycle (its sandbox button) and the public base URL. */
type HostedRoutesContext = LifecycleContext & { config: Pick<Config, "env" | "publicBaseUrl"> };

export function hostedRoutes(ctx: HostedRoutesContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    for (const [name, file] of Object.entries(ASSETS)) {
      app.get(
        `/pay/assets/${name}`,
        { schema: { tags: ["hosted"], summary: `Hosted payment page asset: ${name}` } },
        async (_request, reply) =>
          reply
            .header("Cache-Control", "public, max-age=86400")
            .header("X-Content-Type-Options", "nosniff")
            .header("Content-Security-Policy", "default-src 'none'")
            .type(file.type)
            .send(file.body),
      );
    }

    pageRoute(app, ctx);
    statusRoute(app, ctx);
    qrRoute(app, ctx);

    // The customer's side of CONTRACT 9's simulate route. It exists only in sandbox: in live
    // the path is unknown (404), so no live payment can be moved by anything but its provider.
    if (ctx.config.env === "sandbox") {
      app.post(
        "/pay/:id/simulate",
        {
          schema: {
            tags: ["hosted"],
            summary:
              "Sandbox: the customer pays (the hosted page's button); an X-Client-Secret header, when sent, must be the payment's",
            params: HostedParams,
            body: SimulateBody,
          },
          preValidation: [rejectUnparsedBody, emptyBodyAsObject],
        },
        async (request, reply) => {
          const status = await simulateHostedPayment(ctx, request.params.id, clientSecretOf(request));
          return reply.header("Cache-Control", "no-store").send(ok(status));
        },
      );
    }
  };
}

function pageRoute(app: App, ctx: HostedRoutesContext): void {
  app.get(
    "/pay/:id",
    { schema: { tags: ["hosted"], summary: "Hosted payment page (HTML)", params: HostedParams } },
    async (request, reply) => {
      const lang = chooseLang((request.query as { lang?: unknown }).lang, request.headers["accept-language"]);
      let view: Awaited<ReturnType<typeof loadHostedPayment>>;
      try {
        view = await loadHostedPayment(ctx, request.params.id);
      } catch (error) {
        if (isAppError(error) && error.code === "RESOURCE_NOT_FOUND" && wantsHtml(request)) {
          const basePath = basePathOf(ctx.config.publicBaseUrl);
          return htmlHeaders(reply, lang)
            .code(404)
            .send(renderNotFoundPage(lang, assetUrl(basePath, "icon.svg"), basePath));
        }
        throw error;
      }
      const basePath = basePathOf(ctx.config.publicBaseUrl);
      const html = renderPaymentPage(view, {
        lang,
        sandbox: ctx.config.env === "sandbox",
        basePath,
        scriptUrl: assetUrl(basePath, "page.js"),
        iconUrl: assetUrl(basePath, "icon.svg"),
      });
      return htmlHeaders(reply, lang, imageOriginOf(view.qrImageUrl)).send(html);
    },
  );
}

function statusRoute(app: App, ctx: HostedRoutesContext): void {
  app.get(
    "/pay/:id/status",
    {
      schema: {
        tags: ["hosted"],
        summary:
          "Live status for the hosted page (what the page shows); an X-Client-Secret header, when sent, must be the payment's",
        params: HostedParams,
      },
    },
    async (request, reply) => {
      const status = await getHostedStatus(ctx, request.params.id, clientSecretOf(request));
      return reply.header("Cache-Control", "no-store").send(ok(status));
    },
  );
}

function qrRoute(app: App, ctx: HostedRoutesContext): void {
  app.get(
    "/pay/:id/qr.png",
    { schema: { tags: ["hosted"], summary: "PromptPay QR code of a payment (PNG)", params: HostedParams } },
    async (request, reply) => {
      const png = await hostedQrPng(ctx, request.params.id);
      return reply
        .header("Cache-Control", "no-store")
        .header("X-Content-Type-Options", "nosniff")
        .type("image/png")
        .send(png);
    },
  );
}
