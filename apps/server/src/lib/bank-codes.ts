/**
 * Three-digit codes of banks operating in Thailand (Bank of Thailand bank code list), with
 * their names. A bank code outside this table is refused with `INVALID_BANK_CODE`.
 */
export interface Bank {
  code: string;
  shortName: string;
  name: string;
  nameTh: string;
}

export const BANKS: readonly Bank[] = [
  { code: "002", shortName: "BBL", name: "Bangkok Bank", nameTh: "ธนาคารกรุงเทพ" },
  { code: "004", shortName: "KBANK", name: "Kasikornbank", nameTh: "ธนาคารกสิกรไทย" },
  { code: "006", shortName: "KTB", name: "Krung Thai Bank", nameTh: "ธนาคารกรุงไทย" },
  { code: "008", shortName: "JPM", name: "JPMorgan Chase Bank", nameTh: "ธนาคารเจพีมอร์แกน เชส" },
  {
    code: "009",
    shortName: "OCBC",
    name: "Oversea-Chinese Banking Corporation",
    nameTh: "ธนาคารโอเวอร์ซี-ไชนีสแบงกิ้งคอร์ปอเรชั่น",
  },
  { code: "011", shortName: "TTB", name: "TMBThanachart Bank", nameTh: "ธนาคารทหารไทยธนชาต" },
  { code: "014", shortName: "SCB", name: "Siam Commercial Bank", nameTh: "ธนาคารไทยพาณิชย์" },
  { code: "017", shortName: "CITI", name: "Citibank", nameTh: "ธนาคารซิตี้แบงก์" },
  {
    code: "018",
    shortName: "SMBC",
    name: "Sumitomo Mitsui Banking Corporation",
    nameTh: "ธนาคารซูมิโตโม มิตซุย แบงกิ้ง คอร์ปอเรชั่น",
  },
  {
    code: "020",
    shortName: "SCBT",
    name: "Standard Chartered Bank (Thai)",
    nameTh: "ธนาคารสแตนดาร์ดชาร์เตอร์ด (ไทย)",
  },
  { code: "022", shortName: "CIMBT", name: "CIMB Thai Bank", nameTh: "ธนาคารซีไอเอ็มบี ไทย" },
  { code: "023", shortName: "RHB", name: "RHB Bank", nameTh: "ธนาคารอาร์ เอช บี" },
  { code: "024", shortName: "UOBT", name: "United Overseas Bank (Thai)", nameTh: "ธนาคารยูโอบี" },
  { code: "025", shortName: "BAY", name: "Bank of Ayudhya (Krungsri)", nameTh: "ธนาคารกรุงศรีอยุธยา" },
  {
    code: "026",
    shortName: "MEGA",
    name: "Mega International Commercial Bank",
    nameTh: "ธนาคารเมกะ สากลพาณิชย์",
  },
  { code: "027", shortName: "BOA", name: "Bank of America", nameTh: "ธนาคารแห่งอเมริกา" },
  { code: "029", shortName: "IOB", name: "Indian Overseas Bank", nameTh: "ธนาคารอินเดียนโอเวอร์ซีส์" },
  { code: "030", shortName: "GSB", name: "Government Savings Bank", nameTh: "ธนาคารออมสิน" },
  {
    code: "031",
    shortName: "HSBC",
    name: "Hongkong and Shanghai Banking Corporation",
    nameTh: "ธนาคารฮ่องกงและเซี่ยงไฮ้แบงกิ้งคอร์ปอเรชั่น",
  },
  { code: "032", shortName: "DB", name: "Deutsche Bank", nameTh: "ธนาคารดอยซ์แบงก์" },
  { code: "033", shortName: "GHB", name: "Government Housing Bank", nameTh: "ธนาคารอาคารสงเคราะห์" },
  {
    code: "034",
    shortName: "BAAC",
    name: "Bank for Agriculture and Agricultural Cooperatives",
    nameTh: "ธนาคารเพื่อการเกษตรและสหกรณ์การเกษตร",
  },
  {
    code: "035",
    shortName: "EXIM",
    name: "Export-Import Bank of Thailand",
    nameTh: "ธนาคารเพื่อการส่งออกและนำเข้าแห่งประเทศไทย",
  },
  { code: "039", shortName: "MHCB", name: "Mizuho Bank", nameTh: "ธนาคารมิซูโฮ" },
  { code: "045", shortName: "BNPP", name: "BNP Paribas", nameTh: "ธนาคารบีเอ็นพี พารีบาส์" },
  { code: "052", shortName: "BOC", name: "Bank of China (Thai)", nameTh: "ธนาคารแห่งประเทศจีน (ไทย)" },
  { code: "066", shortName: "ISBT", name: "Islamic Bank of Thailand", nameTh: "ธนาคารอิสลามแห่งประเทศไทย" },
  { code: "067", shortName: "TISCO", name: "TISCO Bank", nameTh: "ธนาคารทิสโก้" },
  { code: "069", shortName: "KKP", name: "Kiatnakin Phatra Bank", nameTh: "ธนาคารเกียรตินาคินภัทร" },
  {
    code: "070",
    shortName: "ICBCT",
    name: "Industrial and Commercial Bank of China (Thai)",
    nameTh: "ธนาคารไอซีบีซี (ไทย)",
  },
  { code: "071", shortName: "TCD", name: "Thai Credit Bank", nameTh: "ธนาคารไทยเครดิต" },
  { code: "073", shortName: "LHFG", name: "Land and Houses Bank", nameTh: "ธนาคารแลนด์ แอนด์ เฮ้าส์" },
  { code: "079", shortName: "ANZ", name: "ANZ Bank (Thai)", nameTh: "ธนาคารเอเอ็นแซด (ไทย)" },
  {
    code: "080",
    shortName: "SMTB",
    name: "Sumitomo Mitsui Trust Bank (Thai)",
    nameTh: "ธนาคารซูมิโตโม มิตซุย ทรัสต์ (ไทย)",
  },
  {
    code: "098",
    shortName: "SME",
    name: "Small and Medium Enterprise Development Bank of Thailand",
    nameTh: "ธนาคารพัฒนาวิสาหกิจขนาดกลางและขนาดย่อมแห่งประเทศไทย",
  },
];

const BY_CODE = new Map(BANKS.map((bank) => [bank.code, bank]));

export const BANK_CODES: readonly string[] = BANKS.map((bank) => bank.code);

export function findBank(code: string): Bank | undefined {
  return BY_CODE.get(code);
}

export function isBankCode(code: unknown): code is string {
  return typeof code === "string" && BY_CODE.has(code);
}
