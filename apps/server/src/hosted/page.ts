/**
 * The HTML of the hosted payment page and of its "payment not found" page.
 *
 * Everything the page shows is rendered here, on the server, in the customer's language:
 * every state's panel is in the HTML (all but the current one hidden), and the script
 * (assets/page.js) only switches between them, ticks the countdown and polls the status.
 * The script therefore carries no text of its own, and a page without script still shows
 * the right state as of its loading.
 *
 * Every dynamic value goes through `escapeHtml`, in text and in attributes alike. The style
 * sheet is inline and allowed by its hash in the Content-Security-Policy, so the page needs
 * neither 'unsafe-inline' nor anything from another origin.
 */
import { createHash } from "node:crypto";
import { thaiFontStylesheetHref } from "../http/fonts.ts";
import { formatThb } from "../lib/money.ts";
import { LANGS, type Lang, MESSAGES, type Messages } from "./i18n.ts";
import type { HostedPayment, PageState } from "./service.ts";

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an HTML text node or a quoted attribute value. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/** Baht with thousands separators and two decimals: 123456789n satang -> "1,234,567.89". */
export function displayThb(satang: bigint): string {
  const [baht = "0", fraction = "00"] = formatThb(satang).split(".");
  return `${baht.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${fraction}`;
}

/** The locale of each page language's dates: Thai dates use the Buddhist era Thai customers expect. */
const TIME_LOCALES: Readonly<Record<Lang, string>> = { th: "th-TH", en: "en-GB" };

/**
 * How the page writes a time (the deadline, the receipt's paid time): Thai time, where the
 * customers are, whatever the server's or the phone's time zone. The script formats a paid
 * time it learns by polling with these same options, which the page hands it.
 */
const BANGKOK_TIME: Readonly<Intl.DateTimeFormatOptions> = {
  timeZone: "Asia/Bangkok",
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  timeZoneName: "short",
};

export function formatBangkokTime(at: Date, lang: Lang): string {
  return new Intl.DateTimeFormat(TIME_LOCALES[lang], BANGKOK_TIME).format(at);
}

/** The time left as the script prints it: "14:59", or "23:59:59" from an hour up. */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const two = (n: number) => String(n).padStart(2, "0");
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${two(minutes)}:${two(seconds)}`;
}

/**
 * The page's style sheet: mobile first, widening into a card from 30rem. Text colours keep at
 * least 4.5:1 contrast on their backgrounds. Past the open state the status pill is kept for
 * screen readers only (it is the live region that announces the change) while the state's
 * panel shows it on screen.
 */
const PAGE_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;min-height:100vh;background:#eef1f6;color:#1a1f36;
font:16px/1.5 "Satang Sarabun",system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans Thai","Leelawadee UI",Garuda,Loma,Tahoma,sans-serif}
.top,.card,.foot{width:100%;max-width:28rem;margin:0 auto}
.top{display:flex;align-items:center;justify-content:space-between;padding:.75rem 1rem}
.brand{font-weight:700;letter-spacing:.02em;color:#0b4f8a}
.lang ul{display:flex;gap:.25rem;list-style:none;margin:0;padding:0}
.lang a{display:inline-block;min-width:44px;padding:.5rem .625rem;border-radius:999px;color:#0b4f8a;text-align:center;text-decoration:none;font-size:.875rem}
.lang a:hover{text-decoration:underline}
.lang a[aria-current]{background:#0b4f8a;color:#fff}
.card{background:#fff;padding:1.25rem 1rem 1.5rem;box-shadow:0 1px 3px rgba(16,24,40,.12)}
@media (min-width:30rem){.card{border-radius:1rem;padding:1.75rem 2rem 2rem;margin-top:.5rem}}
.summary{text-align:center}
.label{margin:0;color:#4f566b;font-size:.875rem}
h1{margin:.125rem 0 1rem;font-size:1.375rem;line-height:1.3;overflow-wrap:anywhere}
h2{margin:0 0 .75rem;font-size:1.0625rem}
.amount{margin:.125rem 0 0;font-size:2.25rem;font-weight:700;line-height:1.2;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.amount.long{font-size:min(2.25rem,7.5vw)}
.amount .ccy{font-size:1rem;font-weight:600;color:#4f566b;text-decoration:none}
.status{display:flex;align-items:center;justify-content:center;gap:.5rem;margin:1.25rem auto;padding:.5rem 1rem;border-radius:999px;width:fit-content;max-width:100%;font-weight:600;background:#eef4ff;color:#0b4f8a}
.dot{flex:none;width:.625rem;height:.625rem;border-radius:50%;background:currentColor}
.status-open .dot,.status-processing .dot{animation:pulse 1.6s ease-in-out infinite}
@keyframes pulse{50%{opacity:.3}}
@media (prefers-reduced-motion:reduce){.dot{animation:none!important}}
.status-processing{background:#fff4e0;color:#7a4100}
#payment:not([data-state="open"]) .status{position:absolute;width:1px;height:1px;margin:-1px;padding:0;border:0;overflow:hidden;clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap;background:none}
.status-succeeded{background:#e6f6ec;color:#0a6b34}
.status-expired,.status-canceled,.status-failed{background:#fdecea;color:#a61b12}
.method{text-align:center}
.qr{margin:0}
.qr img{display:block;width:100%;max-width:264px;height:auto;margin:0 auto;border:1px solid #d5dae3;border-radius:.5rem;image-rendering:pixelated}
.qr figcaption,.note{margin:.75rem 0 0;color:#4f566b;font-size:.9375rem}
.transfer{margin:0;text-align:left;border:1px solid #d5dae3;border-radius:.75rem}
.transfer div{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.25rem .75rem;padding:.75rem 1rem;border-top:1px solid #e6e9ef}
.transfer div:first-child{border-top:0}
.transfer dt{color:#4f566b;font-size:.875rem}
.transfer dd{margin:0;display:flex;align-items:center;gap:.5rem;font-weight:600;overflow-wrap:anywhere}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.03em}
button{font:inherit;cursor:pointer}
.copy{min-height:32px;padding:.25rem .625rem;border:1px solid #0b4f8a;border-radius:.375rem;background:#fff;color:#0b4f8a;font-size:.8125rem;font-weight:600}
.countdown{margin:1.25rem 0 0;text-align:center;color:#4f566b}
.countdown #countdown{display:block;color:#1a1f36;font-size:1.75rem;font-weight:700;font-variant-numeric:tabular-nums}
.countdown.urgent #countdown{color:#a61b12}
.deadline{font-size:.875rem}
.result{text-align:center;padding:1.25rem 0 0}
.result svg{display:block;margin:0 auto .75rem;width:4rem;height:4rem}
.result h2{font-size:1.375rem}
.result p{margin:0;color:#3c4257}
.result-succeeded svg{color:#0a7a3b}
.result-processing svg{color:#a35a00}
.result-expired svg,.result-canceled svg,.result-failed svg{color:#b42318}
.sandbox{margin-top:1.5rem;padding:1rem;border:2px dashed #b76e00;border-radius:.75rem;background:#fffaf0;text-align:center}
.sandbox h2{margin:0;font-size:.8125rem;letter-spacing:.08em;text-transform:uppercase;color:#7a4100}
.sandbox p{margin:.25rem 0 .75rem;font-size:.875rem;color:#5c3d00}
.test-clock{font-size:.875rem;color:#7a4100;text-align:center}
.primary{width:100%;min-height:48px;padding:.75rem 1rem;border:0;border-radius:.625rem;background:#0b4f8a;color:#fff;font-weight:600}
.primary:hover{background:#093f6e}
.primary[disabled]{background:#5b6679;cursor:progress}
.error{margin:.75rem 0 0;color:#a61b12;font-size:.875rem;text-align:center}
a:focus-visible,button:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.order{margin:1rem 0 0;font-size:.9375rem}
.order div{display:flex;flex-wrap:wrap;justify-content:center;gap:0 .5rem}
.order dt{color:#4f566b}
.order dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.receipt{margin:1.25rem 0 0;text-align:left;border:1px solid #d5dae3;border-radius:.75rem}
.receipt h3{margin:0;padding:.75rem 1rem;font-size:1rem}
.receipt dl{margin:0}
.receipt dl div{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:space-between;gap:.125rem .75rem;padding:.625rem 1rem;border-top:1px solid #e6e9ef}
.receipt dt{color:#4f566b;font-size:.875rem}
.receipt dd{margin:0 0 0 auto;font-weight:600;text-align:right;overflow-wrap:anywhere}
.receipt .mono{font-size:.8125rem;letter-spacing:0}
.receipt .note{margin:0;padding:.75rem 1rem;border-top:1px solid #e6e9ef;color:#4f566b;font-size:.875rem}
.foot{padding:1rem;text-align:center;color:#4f566b;font-size:.8125rem}
.foot p{margin:.25rem 0;overflow-wrap:anywhere}
[hidden]{display:none!important}
`.trim();

/** The CSP source that allows exactly PAGE_CSS and no other inline style. */
export const PAGE_CSS_HASH = `'sha256-${createHash("sha256").update(PAGE_CSS).digest("base64")}'`;

interface PageOptions {
  lang: Lang;
  sandbox: boolean;
  /** Root-relative prefix of every URL on the page: the path of PUBLIC_BASE_URL, or "". */
  basePath: string;
  /** The script's and the icon's URLs, versioned so a new release never meets a stale cache. */
  scriptUrl: string;
  iconUrl: string;
}

const ICONS: Record<Exclude<PageState, "open">, string> = {
  succeeded: `<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="currentColor"/><path d="M14 24.5l7 7 13-14" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>`,
  processing: `<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="20" fill="none" stroke="currentColor" stroke-width="4"/><path d="M24 13v12l8 5" fill="none" stroke="currentColor" stroke-width="4" stroke-linecap="round"/></svg>`,
  expired: `<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="20" fill="none" stroke="currentColor" stroke-width="4"/><path d="M24 13v12l8 5" fill="none" stroke="currentColor" stroke-width="4" stroke-linecap="round"/></svg>`,
  canceled: `<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="currentColor"/><path d="M16 16l16 16M32 16L16 32" stroke="#fff" stroke-width="4" stroke-linecap="round"/></svg>`,
  failed: `<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="currentColor"/><path d="M24 13v14" stroke="#fff" stroke-width="4" stroke-linecap="round"/><circle cx="24" cy="34" r="2.5" fill="#fff"/></svg>`,
};

function statusText(m: Messages, state: PageState): string {
  switch (state) {
    case "open":
      return m.statusOpen;
    case "processing":
      return m.statusProcessing;
    case "succeeded":
      return m.statusSucceeded;
    case "expired":
      return m.statusExpired;
    case "canceled":
      return m.statusCanceled;
    case "failed":
      return m.statusFailed;
  }
}

function resultDetail(m: Messages, state: Exclude<PageState, "open">, merchant: string): string {
  switch (state) {
    case "processing":
      return m.processingDetail;
    case "succeeded":
      return m.succeededDetail(merchant);
    case "expired":
      return m.expiredDetail(merchant);
    case "canceled":
      return m.canceledDetail(merchant);
    case "failed":
      return m.failedDetail(merchant);
  }
}

const hiddenUnless = (shown: boolean) => (shown ? "" : " hidden");

function languageSwitch(current: Lang): string {
  const links = LANGS.map((lang) => {
    const name = escapeHtml(MESSAGES[lang].languageName);
    const currentMark = lang === current ? ' aria-current="true"' : "";
    return `<li><a href="?lang=${lang}" hreflang="${lang}" lang="${lang}"${currentMark}>${name}</a></li>`;
  }).join("");
  return `<nav class="lang" aria-label="${escapeHtml(MESSAGES[current].languageSwitch)}"><ul>${links}</ul></nav>`;
}

function head(title: string, lang: Lang, iconUrl: string, basePath: string): string {
  const fontsHref = thaiFontStylesheetHref(basePath);
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/svg+xml" href="${escapeHtml(iconUrl)}">
<link rel="stylesheet" href="${escapeHtml(fontsHref)}">
<style>${PAGE_CSS}</style>
</head>`;
}

function copyButton(m: Messages, label: string, value: string): string {
  // Hidden until the script finds a clipboard to write to; without one the value is still
  // plain text the customer can select.
  return `<button type="button" class="copy" data-copy="${escapeHtml(value)}" data-copied-label="${escapeHtml(m.copied)}" aria-label="${escapeHtml(`${m.copy}: ${label}`)}" hidden>${escapeHtml(m.copy)}</button>`;
}

function transferRow(m: Messages, label: string, value: string, options: { mono?: boolean; copy?: string }) {
  const text = options.mono ? `<span class="mono">${escapeHtml(value)}</span>` : escapeHtml(value);
  const copy = options.copy === undefined ? "" : copyButton(m, label, options.copy);
  return `<div><dt>${escapeHtml(label)}</dt><dd>${text}${copy}</dd></div>`;
}

function methodSection(view: HostedPayment, m: Messages, opts: PageOptions, amount: string): string {
  if (view.state !== "open") return "";
  if (view.hasQr || view.qrImageUrl !== null) {
    const src = view.qrImageUrl ?? `${opts.basePath}/pay/${view.id}/qr.png`;
    return `<section class="method" data-when="open" aria-labelledby="method-heading">
<h2 id="method-heading">${escapeHtml(m.promptpayHeading)}</h2>
<figure class="qr"><img src="${escapeHtml(src)}" alt="${escapeHtml(m.qrAlt(amount, view.merchantName))}" width="264" height="264">
<figcaption>${escapeHtml(m.qrHelp)}</figcaption></figure>
</section>`;
  }
  const transfer = view.bankTransfer;
  if (transfer) {
    const bankName = transfer.bank ? (opts.lang === "th" ? transfer.bank.nameTh : transfer.bank.name) : "";
    const bank = bankName ? `${bankName} (${transfer.bankCode})` : transfer.bankCode;
    const plainAmount = formatThb(view.amountSatang);
    return `<section class="method" data-when="open" aria-labelledby="method-heading">
<h2 id="method-heading">${escapeHtml(m.bankHeading)}</h2>
<dl class="transfer">
${transferRow(m, m.bankName, bank, {})}
${transferRow(m, m.accountNumber, transfer.accountNumber, { mono: true, copy: transfer.accountNumber })}
${transferRow(m, m.accountName, transfer.accountName, {})}
${transferRow(m, m.transferAmount, `฿${amount}`, { copy: plainAmount })}
${transferRow(m, m.reference, transfer.reference, { mono: true, copy: transfer.reference })}
</dl>
<p class="note">${escapeHtml(m.bankNote)}</p>
</section>`;
  }
  return "";
}

/** Marks where the time goes in "Pay before …", so the time can be an element of its own. */
const SLOT = "\u0001";

/**
 * The time left and "Pay before": both real time, so they agree whatever the merchant's sandbox
 * test clock says (the countdown is the payment's expiry less the merchant's business time; the
 * deadline is when that reaches zero). The script rewrites the deadline when the status route
 * says it moved (the merchant moved or reset its clock while the page was open).
 */
function countdown(view: HostedPayment, m: Messages, lang: Lang): string {
  if (view.state !== "open" || view.expiresAt === null || view.payBefore === null) return "";
  const remaining = formatRemaining(view.expiresAt.getTime() - view.now.getTime());
  const [before = "", after = ""] = m.payBefore(SLOT).split(SLOT);
  const format = escapeHtml(JSON.stringify(BANGKOK_TIME));
  const deadline = `<time id="pay-before" data-locale="${TIME_LOCALES[lang]}" data-format="${format}" datetime="${view.payBefore.toISOString()}">${escapeHtml(formatBangkokTime(view.payBefore, lang))}</time>`;
  return `<p class="countdown" data-when="open">${escapeHtml(m.timeLeft)}
<time id="countdown" datetime="${escapeHtml(view.expiresAt.toISOString())}" aria-live="off">${remaining}</time>
<span class="deadline">${escapeHtml(before)}${deadline}${escapeHtml(after)}</span></p>`;
}

function durationWords(m: Messages, totalSeconds: number): string {
  const days = Math.floor(totalSeconds / 86_400);
  const hours = Math.floor((totalSeconds % 86_400) / 3_600);
  const minutes = Math.floor((totalSeconds % 3_600) / 60);
  return m.duration(days, hours, minutes, totalSeconds % 60);
}

/**
 * In sandbox, when the merchant's test clock runs ahead: by how much, and when the payment
 * expires by that clock, so a tester sees why the record's times differ from the page's.
 */
function testClockNote(view: HostedPayment, m: Messages, opts: PageOptions): string {
  if (!opts.sandbox || view.clockOffsetSeconds === 0) return "";
  const expiry =
    view.expiresAt === null
      ? ""
      : ` <span data-when="open"${hiddenUnless(view.state === "open")}>${escapeHtml(m.testClockExpiry(formatBangkokTime(view.expiresAt, opts.lang)))}</span>`;
  return `<p id="test-clock" class="note test-clock">${escapeHtml(m.testClockAhead(durationWords(m, view.clockOffsetSeconds)))}${expiry}</p>`;
}

function sandboxSection(view: HostedPayment, m: Messages, opts: PageOptions): string {
  if (!opts.sandbox || view.state !== "open") return "";
  return `<section class="sandbox" data-when="open" aria-labelledby="sandbox-heading">
<h2 id="sandbox-heading">${escapeHtml(m.sandboxHeading)}</h2>
<p>${escapeHtml(m.sandboxNote)}</p>
<button type="button" id="simulate" class="primary" data-busy-label="${escapeHtml(m.simulating)}">${escapeHtml(m.simulate)}</button>
<p id="simulate-error" class="error" role="alert" hidden>${escapeHtml(m.simulateFailed)}</p>
</section>`;
}

/** A row of a definition list whose value is markup already escaped by the caller. */
function detailRow(label: string, valueHtml: string, attributes = ""): string {
  return `<div${attributes}><dt>${escapeHtml(label)}</dt><dd>${valueHtml}</dd></div>`;
}

const mono = (value: string) => `<span class="mono">${escapeHtml(value)}</span>`;

/**
 * What the customer is paying for, under the amount in every state: the merchant's description
 * (merchant input, escaped like everything else) and its reference for the payment.
 */
function orderDetails(view: HostedPayment, m: Messages): string {
  const description = view.description ? detailRow(m.description, escapeHtml(view.description)) : "";
  return `<dl class="order">${description}${detailRow(m.orderReference, mono(view.referenceId))}</dl>`;
}

/**
 * The paid time. A page rendered before the payment succeeded has it empty and hidden; the
 * script fills it from the status route's `paidAt` with the locale and options given here, so
 * it reads the same as one the server rendered.
 */
function paidAtRow(view: HostedPayment, m: Messages, lang: Lang): string {
  const { paidAt } = view;
  const format = escapeHtml(JSON.stringify(BANGKOK_TIME));
  const datetime = paidAt === null ? "" : ` datetime="${paidAt.toISOString()}"`;
  const text = paidAt === null ? "" : escapeHtml(formatBangkokTime(paidAt, lang));
  const time = `<time id="paid-at" data-locale="${TIME_LOCALES[lang]}" data-format="${format}"${datetime}>${text}</time>`;
  return detailRow(m.paidAt, time, ` id="paid-at-row"${hiddenUnless(paidAt !== null)}`);
}

/** The receipt in the success panel: everything a customer's screenshot must prove. */
function receipt(view: HostedPayment, m: Messages, lang: Lang): string {
  const amount = `฿${displayThb(view.amountSatang)} THB`;
  const rows = [
    view.merchantName ? detailRow(m.paidTo, escapeHtml(view.merchantName)) : "",
    detailRow(m.amountPaid, escapeHtml(amount)),
    paidAtRow(view, m, lang),
    detailRow(m.orderReference, mono(view.referenceId)),
    view.description ? detailRow(m.description, escapeHtml(view.description)) : "",
    detailRow(m.paymentId, mono(view.id)),
  ];
  return `<section class="receipt" aria-labelledby="receipt-heading">
<h3 id="receipt-heading">${escapeHtml(m.receiptHeading)}</h3>
<dl>
${rows.filter((row) => row !== "").join("\n")}
</dl>
<p class="note">${escapeHtml(m.receiptNote)}</p>
</section>`;
}

function resultPanels(view: HostedPayment, m: Messages, lang: Lang): string {
  const states: Exclude<PageState, "open">[] = ["processing", "succeeded", "expired", "canceled", "failed"];
  return states
    .map(
      (
        state,
      ) => `<section class="result result-${state}" data-when="${state}"${hiddenUnless(view.state === state)}>
${ICONS[state]}
<h2>${escapeHtml(statusText(m, state))}</h2>
<p>${escapeHtml(resultDetail(m, state, view.merchantName))}</p>${state === "succeeded" ? `\n${receipt(view, m, lang)}` : ""}
</section>`,
    )
    .join("\n");
}

function statusRegion(view: HostedPayment, m: Messages): string {
  // The script reads the text of each state from these attributes, so it needs none of its own.
  const messages = (["open", "processing", "succeeded", "expired", "canceled", "failed"] as const)
    .map((state) => ` data-msg-${state}="${escapeHtml(statusText(m, state))}"`)
    .join("");
  return `<div id="status" class="status status-${view.state}" role="status" aria-live="polite" aria-atomic="true"${messages}>
<span class="dot" aria-hidden="true"></span><span id="status-text">${escapeHtml(statusText(m, view.state))}</span>
</div>`;
}

export function renderPaymentPage(view: HostedPayment, opts: PageOptions): string {
  const m = MESSAGES[opts.lang];
  const amount = displayThb(view.amountSatang);
  const base = `${opts.basePath}/pay/${view.id}`;
  const data = [
    ["state", view.state],
    ["status-url", `${base}/status`],
    ["simulate-url", opts.sandbox ? `${base}/simulate` : ""],
    ["expires-at", view.expiresAt === null ? "" : view.expiresAt.toISOString()],
    ["now", view.now.toISOString()],
  ]
    .map(([name, value]) => ` data-${name}="${escapeHtml(value ?? "")}"`)
    .join("");
  return `${head(m.pageTitle(view.merchantName), opts.lang, opts.iconUrl, opts.basePath)}
<body>
<header class="top"><span class="brand">Satang</span>${languageSwitch(opts.lang)}</header>
<main id="payment" class="card"${data}>
<section class="summary" aria-labelledby="merchant">
<p class="label">${escapeHtml(m.payTo)}</p>
<h1 id="merchant">${escapeHtml(view.merchantName)}</h1>
<p class="label" id="amount-label">${escapeHtml(m.amount)}</p>
<p class="amount${amount.length > 12 ? " long" : ""}" aria-describedby="amount-label"><span aria-hidden="true">฿</span>${amount} <abbr class="ccy" title="${escapeHtml(m.currencyName)}">THB</abbr></p>
${orderDetails(view, m)}
</section>
${statusRegion(view, m)}
${methodSection(view, m, opts, amount)}
${countdown(view, m, opts.lang)}
${resultPanels(view, m, opts.lang)}
${sandboxSection(view, m, opts)}
${testClockNote(view, m, opts)}
<p id="connection" class="error" role="alert" hidden>${escapeHtml(m.connectionLost)}</p>
<noscript><p class="note">${escapeHtml(m.noScript)}</p></noscript>
</main>
<footer class="foot">
<p>${escapeHtml(m.paymentId)} <span class="mono">${escapeHtml(view.id)}</span></p>
<p>${escapeHtml(m.securedBy)}</p>
</footer>
<script type="module" src="${escapeHtml(opts.scriptUrl)}"></script>
</body>
</html>
`;
}

export function renderNotFoundPage(lang: Lang, iconUrl: string, basePath: string): string {
  const m = MESSAGES[lang];
  return `${head(m.notFoundPageTitle, lang, iconUrl, basePath)}
<body>
<header class="top"><span class="brand">Satang</span>${languageSwitch(lang)}</header>
<main class="card">
<section class="result result-failed">
${ICONS.failed}
<h1>${escapeHtml(m.notFoundTitle)}</h1>
<p>${escapeHtml(m.notFoundDetail)}</p>
</section>
</main>
</body>
</html>
`;
}
