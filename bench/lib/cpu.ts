/**
 * Where a closed loop's CPU went, per answered request: the server process, this load
 * generator, the PostgreSQL backends connected to the bench's own database, and the rest of the
 * machine (the kernel's network work, PostgreSQL's shared processes, anything else running).
 * Read from /proc (Linux) before and after the load; elsewhere it is not measured.
 *
 * The backends' share (`database`) is the one to read on a shared machine: "the rest" also holds
 * every other program's CPU. A backend that connects during the load is counted from its start,
 * one that disconnects during it is not counted (the pools keep theirs open).
 */
import { existsSync, readFileSync } from "node:fs";
import pg from "pg";

/** Linux's USER_HZ: /proc reports CPU time in hundredths of a second. */
const TICKS_PER_SECOND = 100;

export interface CpuSplit {
  /** µs of CPU per answered request. */
  server: number;
  /** the part of `server` spent in the kernel (system calls: sockets above all). */
  serverSystem: number;
  generator: number;
  /** the backends of the bench's database (BENCH_DATABASE_URL); 0 when it is not known. */
  database: number;
  rest: number;
}

interface Reading {
  server: number;
  serverSystem: number;
  generator: number;
  machine: number;
}

function processSeconds(pid: number): number {
  // The fields after the command name (which may hold spaces) start at its closing parenthesis.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** The processes `pid` started (Linux's /proc children list; none where it is not kept). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** `pid` and the processes it started, which is the service when it runs as several. */
function treeSeconds(pid: number, pick: (pid: number) => number): number {
  let seconds = pick(pid);
  for (const child of childPids(pid)) {
    try {
      seconds += pick(child);
    } catch {
      // Gone since it was listed.
    }
  }
  return seconds;
}

/** CPU seconds of each backend connected to the bench's database, by pid (none when unknown). */
async function backendSeconds(): Promise<Map<number, number>> {
  const url = process.env.BENCH_DATABASE_URL;
  const seconds = new Map<number, number>();
  if (!url) return seconds;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    for (const { pid } of rows) {
      try {
        seconds.set(pid, processSeconds(pid));
      } catch {
        // Not on this machine, or gone since: not counted.
      }
    }
  } finally {
    await client.end();
  }
  return seconds;
}

function processSystemSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return Number(fields[12]) / TICKS_PER_SECOND;
}

function machineSeconds(): number {
  // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
  const [user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / TICKS_PER_SECOND;
}

function read(pid: number): Reading {
  const own = process.cpuUsage();
  return {
    server: treeSeconds(pid, processSeconds),
    serverSystem: treeSeconds(pid, processSystemSeconds),
    generator: (own.user + own.system) / 1e6,
    machine: machineSeconds(),
  };
}

/** Starts measuring; the returned function ends it and divides by `requests`. */
export async function measureCpu(
  pid: number | undefined,
): Promise<(requests: number) => Promise<CpuSplit | undefined>> {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return async () => undefined;
  const backendsBefore = await backendSeconds();
  const before = read(pid);
  return async (requests) => {
    if (requests <= 0) return undefined;
    const after = read(pid);
    const backendsAfter = await backendSeconds();
    let database = 0;
    for (const [backend, seconds] of backendsAfter) database += seconds - (backendsBefore.get(backend) ?? 0);
    const us = (seconds: number) => Math.round((seconds * 1e6) / requests);
    const server = after.server - before.server;
    const generator = after.generator - before.generator;
    const machine = after.machine - before.machine;
    return {
      server: us(server),
      serverSystem: us(after.serverSystem - before.serverSystem),
      generator: us(generator),
      database: us(database),
      rest: us(Math.max(0, machine - server - generator - database)),
    };
  };
}

/** A report row (no goal): the service's CPU per request beside the baseline's. */
export function cpuBasis(service: CpuSplit | undefined, baseline?: CpuSplit): string {
  if (!service) return "not measured (no /proc, or no request answered)";
  const against = (pick: (s: CpuSplit) => number) => (baseline ? ` / ${pick(baseline)}` : "");
  return (
    `server ${service.server}${against((s) => s.server)} µs ` +
    `(kernel ${service.serverSystem}${against((s) => s.serverSystem)}), ` +
    `PostgreSQL backends of the database ${service.database}${against((s) => s.database)} µs, ` +
    `rest of the machine ${service.rest}${against((s) => s.rest)} µs, ` +
    `load generator ${service.generator}${against((s) => s.generator)} µs`
  );
}
