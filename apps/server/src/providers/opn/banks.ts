/**
 * Our bank codes (lib/bank-codes.ts, the Bank of Thailand's three digits) to Opn's
 * `bank_account[brand]` codes, from Opn's "Supported banks" page for Thailand. A bank that is
 * not on Opn's page has no entry: a payout to it fails before anything is sent.
 */
const OPN_BRANDS: Readonly<Record<string, string>> = {
  "002": "bbl",
  "004": "kbank",
  "006": "ktb",
  "008": "jpm",
  "011": "ttb",
  "014": "scb",
  "017": "citi",
  "018": "smbc",
  "020": "sc",
  "022": "cimb",
  "024": "uob",
  "025": "bay",
  "026": "mega",
  "027": "boa",
  "030": "gsb",
  "031": "hsbc",
  "032": "db",
  "033": "ghb",
  "034": "baac",
  "039": "mb",
  "045": "bnp",
  "066": "ibank",
  "067": "tisco",
  "069": "kk",
  "070": "icbc",
  "071": "tcrb",
  "073": "lhb",
};

export function opnBrandOf(bankCode: string): string | null {
  return OPN_BRANDS[bankCode] ?? null;
}
