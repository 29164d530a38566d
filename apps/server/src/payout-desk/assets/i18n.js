// @ts-check
// Every string the payout desk shows, in English and Thai, the same way as the dashboard's
// texts (src/dashboard/assets/i18n.js): Thai must have exactly English's keys (the type check
// refuses a missing or an extra one, and test/payout-desk/assets.test.ts checks that no text is
// empty and both have the same {placeholders}), so switching language never leaves a string
// behind. {name} marks a value filled in at run time. Keys of the form "family.value"
// ("withdrawStatus.paid") name a value of one of the server's lists.

/** @typedef {"en" | "th"} Lang */

/** @type {readonly Lang[]} */
export const LANGS = ["en", "th"];

const en = {
  appTitle: "Satang payout desk",
  deskTitle: "Payout desk",
  switchLanguage: "ภาษาไทย",
  switchLanguageLabel: "เปลี่ยนเป็นภาษาไทย (Switch to Thai)",
  loading: "Loading…",
  networkError: "The server could not be reached. Check your connection and try again.",

  signInIntro: "Sign in with the operator token (ADMIN_TOKEN).",
  tokenLabel: "Operator token",
  signIn: "Sign in",
  tokenRefused: "The operator token was refused.",
  signOut: "Sign out",

  newBatchHeading: "New batch from pending withdraws",
  merchantId: "Merchant id",
  merchantPlaceholder: "all merchants",
  atMost: "At most",
  createdBy: "Created by",
  createdByPlaceholder: "your name",
  createBatch: "Create batch",
  batchCreated: "Batch created with {count} lines.",

  batchesHeading: "Batches",
  noBatches: "No batches yet.",
  colBatch: "Batch",
  colCreated: "Created",
  colBy: "By",
  colStatus: "Status",
  colItems: "Withdraws",
  colTotal: "Total (THB)",
  colOutcomes: "Outcomes",
  outcomesSummary: "{paid} paid, {failed} failed, {open} open",
  timesNote: "Times are Bangkok time (UTC+7).",

  allBatches: "All batches",
  downloadCsv: "Download CSV",
  csvFailed: "The CSV could not be downloaded.",
  batchTitle: "Batch {id} ({status})",
  batchSummary:
    "{count} lines ({withdraws} withdraws, {refunds} refunds), total {total}; {paid} paid ({paidAmount}), {failed} failed, {open} open. Created by {by}.",
  amountsNote:
    "Amounts are in Thai baht (THB), the same figures as the CSV's amount_thb column. Pay each line from the bank, then record its outcome here.",
  colPosition: "#",
  colDestination: "Destination",
  colBank: "Bank",
  colAccount: "Account",
  colName: "Account name",
  colAmount: "Amount (THB)",
  colReference: "Reference",
  colWithdraw: "Withdraw",
  colWithdrawStatus: "Withdraw status",
  colOutcome: "Outcome",
  colRecordedBy: "Recorded by",
  bankReferencePlaceholder: "bank reference",
  reasonPlaceholder: "reason",
  markPaid: "Paid",
  markFailed: "Failed",
  outcomePaid: "paid · {reference}",
  outcomeFailed: "failed · {reason}",
  recorded: "Recorded {outcome} for withdraw {id}.",
  recordedRefund: "Recorded {outcome} for refund {id}.",
  refundLine: "Refund",
  recordedBy: "{name} via {via}",
  none: "—",

  "batchStatus.open": "open",
  "batchStatus.closed": "closed",
  "outcome.paid": "paid",
  "outcome.failed": "failed",
  "via.api": "API",
  "via.cli": "CLI",
  "via.desk": "payout desk",

  "withdrawStatus.awaiting_verification": "Awaiting approval",
  "withdrawStatus.pending": "Pending",
  "withdrawStatus.processing": "Processing",
  "withdrawStatus.paid": "Paid",
  "withdrawStatus.failed": "Failed",
  "withdrawStatus.canceled": "Canceled",
  "withdrawStatus.expired": "Expired",

  "refundStatus.pending": "Pending",
  "refundStatus.processing": "Processing",
  "refundStatus.succeeded": "Succeeded",
  "refundStatus.failed": "Failed",
  "refundStatus.canceled": "Canceled",

  "destination.bank_account": "Bank account",
  "destination.wallet": "Wallet",
};

/** @typedef {keyof typeof en} MessageKey */

/** @type {Record<MessageKey, string>} */
const th = {
  appTitle: "ระบบจ่ายเงินถอน Satang",
  deskTitle: "ระบบจ่ายเงินถอน",
  switchLanguage: "English",
  switchLanguageLabel: "Switch to English (เปลี่ยนเป็นภาษาอังกฤษ)",
  loading: "กำลังโหลด…",
  networkError: "ติดต่อเซิร์ฟเวอร์ไม่ได้ ตรวจสอบการเชื่อมต่อแล้วลองอีกครั้ง",

  signInIntro: "เข้าสู่ระบบด้วยโทเคนผู้ดูแลระบบ (ADMIN_TOKEN)",
  tokenLabel: "โทเคนผู้ดูแลระบบ",
  signIn: "เข้าสู่ระบบ",
  tokenRefused: "โทเคนผู้ดูแลระบบไม่ถูกต้อง",
  signOut: "ออกจากระบบ",

  newBatchHeading: "สร้างชุดใหม่จากรายการถอนที่รอดำเนินการ",
  merchantId: "รหัสร้านค้า",
  merchantPlaceholder: "ทุกร้านค้า",
  atMost: "ไม่เกิน",
  createdBy: "สร้างโดย",
  createdByPlaceholder: "ชื่อของคุณ",
  createBatch: "สร้างชุด",
  batchCreated: "สร้างชุดแล้ว มี {count} รายการ",

  batchesHeading: "ชุดรายการจ่าย",
  noBatches: "ยังไม่มีชุดรายการจ่าย",
  colBatch: "ชุด",
  colCreated: "สร้างเมื่อ",
  colBy: "โดย",
  colStatus: "สถานะ",
  colItems: "รายการถอน",
  colTotal: "ยอดรวม (บาท)",
  colOutcomes: "ผลการจ่าย",
  outcomesSummary: "จ่ายแล้ว {paid}, ไม่สำเร็จ {failed}, ค้างอยู่ {open}",
  timesNote: "เวลาทั้งหมดเป็นเวลากรุงเทพฯ (UTC+7)",

  allBatches: "ชุดทั้งหมด",
  downloadCsv: "ดาวน์โหลด CSV",
  csvFailed: "ดาวน์โหลดไฟล์ CSV ไม่สำเร็จ",
  batchTitle: "ชุด {id} ({status})",
  batchSummary:
    "{count} รายการ (ถอนเงิน {withdraws}, คืนเงิน {refunds}) ยอดรวม {total}; จ่ายแล้ว {paid} ({paidAmount}), ไม่สำเร็จ {failed}, ค้างอยู่ {open} สร้างโดย {by}",
  amountsNote: "จำนวนเงินเป็นบาท (THB) ตรงกับคอลัมน์ amount_thb ในไฟล์ CSV จ่ายแต่ละรายการผ่านธนาคาร แล้วบันทึกผลที่นี่",
  colPosition: "ลำดับ",
  colDestination: "ปลายทาง",
  colBank: "ธนาคาร",
  colAccount: "เลขบัญชี",
  colName: "ชื่อบัญชี",
  colAmount: "จำนวนเงิน (บาท)",
  colReference: "เลขอ้างอิง",
  colWithdraw: "รายการถอน",
  colWithdrawStatus: "สถานะรายการถอน",
  colOutcome: "ผลการจ่าย",
  colRecordedBy: "บันทึกโดย",
  bankReferencePlaceholder: "เลขอ้างอิงธนาคาร",
  reasonPlaceholder: "เหตุผล",
  markPaid: "จ่ายแล้ว",
  markFailed: "ไม่สำเร็จ",
  outcomePaid: "จ่ายแล้ว · {reference}",
  outcomeFailed: "ไม่สำเร็จ · {reason}",
  recorded: "บันทึกผล “{outcome}” ของรายการถอน {id} แล้ว",
  recordedRefund: "บันทึกผล “{outcome}” ของรายการคืนเงิน {id} แล้ว",
  refundLine: "คืนเงิน",
  recordedBy: "{name} ผ่าน {via}",
  none: "—",

  "batchStatus.open": "เปิดอยู่",
  "batchStatus.closed": "ปิดแล้ว",
  "outcome.paid": "จ่ายแล้ว",
  "outcome.failed": "ไม่สำเร็จ",
  "via.api": "เอพีไอ",
  "via.cli": "คำสั่ง CLI",
  "via.desk": "หน้าระบบจ่ายเงินถอน",

  "withdrawStatus.awaiting_verification": "รอการอนุมัติ",
  "withdrawStatus.pending": "รอดำเนินการ",
  "withdrawStatus.processing": "กำลังดำเนินการ",
  "withdrawStatus.paid": "จ่ายแล้ว",
  "withdrawStatus.failed": "ไม่สำเร็จ",
  "withdrawStatus.canceled": "ยกเลิกแล้ว",
  "withdrawStatus.expired": "หมดอายุ",

  "refundStatus.pending": "รอดำเนินการ",
  "refundStatus.processing": "กำลังดำเนินการ",
  "refundStatus.succeeded": "สำเร็จ",
  "refundStatus.failed": "ไม่สำเร็จ",
  "refundStatus.canceled": "ยกเลิกแล้ว",

  "destination.bank_account": "บัญชีธนาคาร",
  "destination.wallet": "วอลเล็ต",
};

/** @type {Record<Lang, Record<MessageKey, string>>} */
export const MESSAGES = { en, th };
