/** The one table `npm run bench` prints: each goal's measured value, goal, verdict and basis. */

export interface Row {
  id: string;
  what: string;
  value: number;
  goal: string;
  pass: boolean | undefined;
  basis: string;
}

export function goalRow(
  id: string,
  what: string,
  value: number,
  goal: { atLeast?: number; atMost?: number },
  basis: string,
): Row {
  const pass =
    goal.atLeast !== undefined
      ? value >= goal.atLeast
      : goal.atMost !== undefined
        ? value <= goal.atMost
        : undefined;
  const text =
    goal.atLeast !== undefined ? `>= ${goal.atLeast}` : goal.atMost !== undefined ? `<= ${goal.atMost}` : "";
  return { id, what, value, goal: text, pass, basis };
}

/**
 * A report row (no goal): the statements the server sent to PostgreSQL during a load, per
 * answered request. Concurrent requests share statements (db/statement-group.ts), so under load
 * this is below the count of one request alone (the SQL rows); background jobs are included.
 */
export function statementsRow(what: string, statements: number, answered: number): Row {
  const perRequest = answered > 0 ? statements / answered : 0;
  return goalRow(
    "SQL",
    `${what} under the load: statements per request`,
    perRequest,
    {},
    `${statements} statements for ${answered} answered requests`,
  );
}

function cell(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}

export function printRows(rows: Row[]): void {
  const header = ["goal", "what", "value", "goal", "pass", "measured (divided by)"];
  const lines = rows.map((r) => [
    r.id,
    r.what,
    String(Math.round(r.value * 100) / 100),
    r.goal,
    r.pass === undefined ? "" : r.pass ? "PASS" : "FAIL",
    r.basis,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  for (const line of [header, widths.map((w) => "-".repeat(w)), ...lines]) {
    console.log(
      line
        .map((c, i) => cell(c, widths[i]!))
        .join("  ")
        .trimEnd(),
    );
  }
}

export function ms(value: number): string {
  // Two decimals under 10 ms, where a tenth is a large part of the value.
  return value < 10 ? `${Math.round(value * 100) / 100} ms` : `${Math.round(value * 10) / 10} ms`;
}
