/**
 * The hosted payment page (`paymentAppUrl` = PUBLIC_BASE_URL/pay/{id}) and the PNG of a
 * payment's PromptPay QR (`qrCode.imageUrl`). No API key: the customer only holds the link.
 * The page shows what the customer needs to pay (merchant, amount, QR, status) and nothing of
 * the merchant's own data. This is the minimal page; the full hosted flow comes later.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { Type } from "typebox";
import type { Deps } from "../deps.ts";
import { getHostedPayment, getPaymentQrPng, type HostedPaymentView } from "../payments/service.ts";
import { qrImageUrl } from "../payments/view.ts";

const HostedParams = Type.Object({ id: Type.String({ description: "Payment UUID" }) });

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/**
 * The page loads nothing but its own QR image (from the public base URL, which may sit behind a
 * proxy under another origin) and inline style, and is never cached, since the status it shows
 * changes.
 */
function pageHeaders(reply: FastifyReply, imageOrigin: string): FastifyReply {
  return reply
    .header(
      "Content-Security-Policy",
      `default-src 'none'; img-src 'self' ${imageOrigin}; style-src 'unsafe-inline'`,
    )
    .header("X-Content-Type-Options", "nosniff")
    .header("Referrer-Policy", "no-referrer")
    .header("Cache-Control", "no-store");
}

function renderPage(view: HostedPaymentView, imageUrl: string): string {
  const qr = view.hasQr
    ? `<img src="${escapeHtml(imageUrl)}" alt="PromptPay QR code" width="264" height="264">`
    : "";
  const expires = view.expiresAt && view.hasQr ? `<p>Pay before ${escapeHtml(view.expiresAt)}</p>` : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pay ${escapeHtml(view.merchantName)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;text-align:center}</style>
</head>
<body>
<h1>${escapeHtml(view.merchantName)}</h1>
<p class="amount">${escapeHtml(view.amountThb)} THB</p>
${qr}
${expires}
<p class="status">Status: ${escapeHtml(view.status)}</p>
</body>
</html>
`;
}

export function hostedRoutes(deps: Deps): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      "/pay/:id",
      { schema: { tags: ["hosted"], summary: "Hosted payment page (HTML)", params: HostedParams } },
      async (request, reply) => {
        const view = await getHostedPayment(deps, request.params.id);
        const imageUrl = qrImageUrl(deps.config, view.id);
        return pageHeaders(reply, new URL(deps.config.publicBaseUrl).origin)
          .type("text/html; charset=utf-8")
          .send(renderPage(view, imageUrl));
      },
    );

    app.get(
      "/pay/:id/qr.png",
      { schema: { tags: ["hosted"], summary: "PromptPay QR code of a payment (PNG)", params: HostedParams } },
      async (request, reply) => {
        const png = await getPaymentQrPng(deps, request.params.id);
        return reply
          .header("Cache-Control", "no-store")
          .header("X-Content-Type-Options", "nosniff")
          .type("image/png")
          .send(png);
      },
    );
  };
}
