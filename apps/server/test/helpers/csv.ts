import assert from "node:assert/strict";
import type { Credentials, TestService } from "./harness.ts";

/**
 * A small RFC 4180 reader for tests: quoted cells with doubled quotes, commas and line breaks
 * inside quotes, CRLF row ends. Returns rows of cells, and the rows as objects by header.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell === "") quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += ch;
  }
  if (cell !== "" || row.length > 0) throw new Error("CSV does not end with CRLF");
  return rows;
}

export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error("no header row");
  return rows.map((cells) => {
    if (cells.length !== header.length)
      throw new Error(`row of ${cells.length} cells, header of ${header.length}`);
    return Object.fromEntries(header.map((name, i) => [name, cells[i]!]));
  });
}

/** A merchant's `ledger.csv` for [from, to), checked answered 200, as rows by header. */
export async function ledgerCsvRecords(
  svc: TestService,
  credentials: Credentials,
  from: Date,
  to: Date,
): Promise<Record<string, string>[]> {
  const range = `dateFrom=${encodeURIComponent(from.toISOString())}&dateTo=${encodeURIComponent(to.toISOString())}`;
  const res = await svc.request("GET", `/api/v1/reports/ledger.csv?${range}`, undefined, { credentials });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return csvRecords(String(res.body));
}
