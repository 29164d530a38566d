/**
 * Every text of the hosted payment page, in Thai and English. `Messages` is one interface that
 * both languages implement, so a string added in one language and forgotten in the other is a
 * type error rather than a blank on a customer's screen.
 *
 * Texts are plain text: the page escapes them where it puts them, so a merchant name inside a
 * message can never become markup.
 */

export const LANGS = ["th", "en"] as const;
export type Lang = (typeof LANGS)[number];

/** Thai customers pay with Thai banking apps; a browser that states no preference gets Thai. */
const DEFAULT_LANG: Lang = "th";

export interface Messages {
  /** The `lang` attribute and the language switch's own name, written in that language. */
  languageName: string;
  languageSwitch: string;
  pageTitle(merchant: string): string;
  notFoundPageTitle: string;
  payTo: string;
  amount: string;
  currencyName: string;
  statusOpen: string;
  statusProcessing: string;
  statusSucceeded: string;
  statusExpired: string;
  statusCanceled: string;
  statusFailed: string;
  succeededDetail(merchant: string): string;
  processingDetail: string;
  expiredDetail(merchant: string): string;
  canceledDetail(merchant: string): string;
  failedDetail(merchant: string): string;
  promptpayHeading: string;
  qrAlt(amount: string, merchant: string): string;
  qrHelp: string;
  bankHeading: string;
  bankName: string;
  accountNumber: string;
  accountName: string;
  transferAmount: string;
  reference: string;
  bankNote: string;
  copy: string;
  copied: string;
  timeLeft: string;
  payBefore(deadline: string): string;
  /** The sandbox note when the merchant's test clock runs ahead: how far, in words. */
  testClockAhead(offset: string): string;
  /** ...and when the payment expires by that clock (shown while it can be paid). */
  testClockExpiry(time: string): string;
  /** A whole number of seconds in words: "1 h 5 min 1 s". */
  duration(days: number, hours: number, minutes: number, seconds: number): string;
  sandboxHeading: string;
  sandboxNote: string;
  simulate: string;
  simulating: string;
  simulateFailed: string;
  connectionLost: string;
  noScript: string;
  paymentId: string;
  description: string;
  orderReference: string;
  receiptHeading: string;
  paidTo: string;
  amountPaid: string;
  paidAt: string;
  receiptNote: string;
  securedBy: string;
  notFoundTitle: string;
  notFoundDetail: string;
}

const en: Messages = {
  languageName: "English",
  languageSwitch: "Language",
  pageTitle: (merchant) => `Pay ${merchant}`,
  notFoundPageTitle: "Payment not found",
  payTo: "Pay to",
  amount: "Amount",
  currencyName: "Thai baht",
  statusOpen: "Waiting for your payment",
  statusProcessing: "Payment received, confirming…",
  statusSucceeded: "Payment successful",
  statusExpired: "This payment has expired",
  statusCanceled: "This payment was canceled",
  statusFailed: "Payment failed",
  succeededDetail: (merchant) => `${merchant} has received your payment. You can close this page.`,
  processingDetail: "Your bank has sent the payment. This page updates by itself when it is confirmed.",
  expiredDetail: (merchant) =>
    `The time to pay has run out. Do not pay with these details any more: ask ${merchant} for a new payment link.`,
  canceledDetail: (merchant) =>
    `Do not pay this payment. If you still want to pay, ask ${merchant} for a new payment link.`,
  failedDetail: (merchant) =>
    `The payment could not be completed. Contact ${merchant} or start a new payment.`,
  promptpayHeading: "Scan to pay with PromptPay",
  qrAlt: (amount, merchant) => `PromptPay QR code: pay ${amount} baht to ${merchant}`,
  qrHelp: "Open any Thai banking app, scan the code, check the amount, then confirm.",
  bankHeading: "Transfer to this account",
  bankName: "Bank",
  accountNumber: "Account number",
  accountName: "Account name",
  transferAmount: "Exact amount",
  reference: "Reference",
  bankNote:
    "Transfer exactly this amount and write the reference in the transfer note, so that your payment is matched to this order.",
  copy: "Copy",
  copied: "Copied",
  timeLeft: "Time left to pay",
  payBefore: (deadline) => `Pay before ${deadline}`,
  testClockAhead: (offset) => `Sandbox test clock: ${offset} ahead of real time.`,
  testClockExpiry: (time) =>
    `By that clock this payment expires at ${time}; the countdown and “Pay before” show real time.`,
  duration: (days, hours, minutes, seconds) =>
    [
      days ? `${days} ${days === 1 ? "day" : "days"}` : "",
      hours ? `${hours} h` : "",
      minutes ? `${minutes} min` : "",
      seconds ? `${seconds} s` : "",
    ]
      .filter(Boolean)
      .join(" "),
  sandboxHeading: "Sandbox",
  sandboxNote: "Test mode: no real money moves. Use the button to act as the customer.",
  simulate: "Simulate customer payment",
  simulating: "Simulating…",
  simulateFailed: "The simulated payment did not go through. Try again.",
  connectionLost: "Cannot reach the server. Retrying…",
  noScript: "Status updates need JavaScript. Reload this page to see the latest status.",
  paymentId: "Payment ID",
  description: "For",
  orderReference: "Order reference",
  receiptHeading: "Receipt",
  paidTo: "Paid to",
  amountPaid: "Amount paid",
  paidAt: "Paid on",
  receiptNote: "Keep a screenshot of this receipt as proof of your payment.",
  securedBy: "Secure payment page by Satang",
  notFoundTitle: "Payment not found",
  notFoundDetail: "Check the link you were given, or ask the merchant for a new one.",
};

const th: Messages = {
  languageName: "ไทย",
  languageSwitch: "ภาษา",
  pageTitle: (merchant) => `ชำระเงินให้ ${merchant}`,
  notFoundPageTitle: "ไม่พบรายการชำระเงิน",
  payTo: "ชำระเงินให้",
  amount: "ยอดชำระ",
  currencyName: "บาท",
  statusOpen: "รอการชำระเงิน",
  statusProcessing: "ได้รับการชำระเงินแล้ว กำลังยืนยัน…",
  statusSucceeded: "ชำระเงินสำเร็จ",
  statusExpired: "รายการชำระเงินนี้หมดอายุแล้ว",
  statusCanceled: "รายการชำระเงินนี้ถูกยกเลิกแล้ว",
  statusFailed: "การชำระเงินไม่สำเร็จ",
  succeededDetail: (merchant) => `${merchant} ได้รับการชำระเงินของคุณแล้ว คุณสามารถปิดหน้านี้ได้`,
  processingDetail: "ธนาคารของคุณส่งการชำระเงินแล้ว หน้านี้จะอัปเดตเองเมื่อยืนยันเรียบร้อย",
  expiredDetail: (merchant) => `หมดเวลาชำระเงินแล้ว โปรดอย่าชำระด้วยข้อมูลนี้อีก และขอลิงก์ชำระเงินใหม่จาก ${merchant}`,
  canceledDetail: (merchant) => `โปรดอย่าชำระรายการนี้ หากยังต้องการชำระเงิน โปรดขอลิงก์ชำระเงินใหม่จาก ${merchant}`,
  failedDetail: (merchant) => `ไม่สามารถชำระเงินให้เสร็จสมบูรณ์ได้ โปรดติดต่อ ${merchant} หรือเริ่มการชำระเงินใหม่`,
  promptpayHeading: "สแกนเพื่อชำระผ่านพร้อมเพย์",
  qrAlt: (amount, merchant) => `คิวอาร์โค้ดพร้อมเพย์: ชำระ ${amount} บาท ให้ ${merchant}`,
  qrHelp: "เปิดแอปธนาคารใดก็ได้ สแกนคิวอาร์โค้ด ตรวจสอบยอดเงิน แล้วกดยืนยัน",
  bankHeading: "โอนเงินเข้าบัญชีนี้",
  bankName: "ธนาคาร",
  accountNumber: "เลขที่บัญชี",
  accountName: "ชื่อบัญชี",
  transferAmount: "ยอดโอนที่ถูกต้อง",
  reference: "รหัสอ้างอิง",
  bankNote: "โปรดโอนเงินตามยอดนี้พอดี และระบุรหัสอ้างอิงในบันทึกช่วยจำ เพื่อให้ระบบจับคู่การชำระเงินกับคำสั่งซื้อนี้ได้",
  copy: "คัดลอก",
  copied: "คัดลอกแล้ว",
  timeLeft: "เวลาที่เหลือในการชำระ",
  payBefore: (deadline) => `ชำระภายใน ${deadline}`,
  testClockAhead: (offset) => `นาฬิกาทดสอบของแซนด์บ็อกซ์เร็วกว่าเวลาจริง ${offset}`,
  testClockExpiry: (time) => `ตามนาฬิกานั้น รายการนี้หมดอายุเวลา ${time} ส่วนเวลานับถอยหลังและ “ชำระภายใน” เป็นเวลาจริง`,
  duration: (days, hours, minutes, seconds) =>
    [
      days ? `${days} วัน` : "",
      hours ? `${hours} ชั่วโมง` : "",
      minutes ? `${minutes} นาที` : "",
      seconds ? `${seconds} วินาที` : "",
    ]
      .filter(Boolean)
      .join(" "),
  sandboxHeading: "แซนด์บ็อกซ์",
  sandboxNote: "โหมดทดสอบ: ไม่มีการโอนเงินจริง ใช้ปุ่มนี้เพื่อทำแทนลูกค้า",
  simulate: "จำลองการชำระเงินของลูกค้า",
  simulating: "กำลังจำลอง…",
  simulateFailed: "จำลองการชำระเงินไม่สำเร็จ โปรดลองอีกครั้ง",
  connectionLost: "เชื่อมต่อเซิร์ฟเวอร์ไม่ได้ กำลังลองใหม่…",
  noScript: "การอัปเดตสถานะต้องใช้ JavaScript โปรดโหลดหน้านี้ใหม่เพื่อดูสถานะล่าสุด",
  paymentId: "รหัสรายการ",
  description: "รายการ",
  orderReference: "เลขที่อ้างอิงคำสั่งซื้อ",
  receiptHeading: "หลักฐานการชำระเงิน",
  paidTo: "ชำระให้",
  amountPaid: "ยอดที่ชำระ",
  paidAt: "วันเวลาที่ชำระ",
  receiptNote: "บันทึกภาพหน้าจอนี้ไว้เป็นหลักฐานการชำระเงินของคุณ",
  securedBy: "หน้าชำระเงินที่ปลอดภัยโดย Satang",
  notFoundTitle: "ไม่พบรายการชำระเงิน",
  notFoundDetail: "โปรดตรวจสอบลิงก์ที่ได้รับ หรือขอลิงก์ใหม่จากร้านค้า",
};

export const MESSAGES: Readonly<Record<Lang, Messages>> = { en, th };

function isLang(value: unknown): value is Lang {
  return typeof value === "string" && (LANGS as readonly string[]).includes(value);
}

/**
 * The language of a page: `?lang=` when it names one we have (the language switch sets it),
 * otherwise the first of ours in the browser's Accept-Language by preference, otherwise Thai.
 * "th-TH" counts as "th"; a language with q=0 is one the browser refuses.
 */
export function chooseLang(query: unknown, acceptLanguage: string | undefined): Lang {
  if (isLang(query)) return query;
  if (!acceptLanguage) return DEFAULT_LANG;
  const ranked = acceptLanguage
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)).find((m) => m !== null);
      const weight = q ? Number(q[1]) : 1;
      return {
        lang: tag.trim().toLowerCase().split("-")[0],
        weight: Number.isFinite(weight) ? weight : 0,
        index,
      };
    })
    .filter((entry) => entry.weight > 0)
    // Equal weights keep the order the browser sent them in.
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const entry of ranked) if (isLang(entry.lang)) return entry.lang;
  return DEFAULT_LANG;
}
