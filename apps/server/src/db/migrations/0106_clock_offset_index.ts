/**
 * The largest sandbox test-clock offset and the shortest settlement delay of any merchant, read
 * by the jobs' due scans to bound their index ranges (lifecycle/business-time-sql.ts): one index
 * lookup each instead of a scan of the merchants.
 */
export const statements: string[] = [
  `CREATE INDEX merchants_clock_offset ON merchants (clock_offset_ms)`,
  `CREATE INDEX merchants_settlement_delay ON merchants (settlement_delay_hours)`,
];
