/**
 * Where a closed loop's CPU went, per answered request: the server process, this load
 * generator, and the rest of the machine (PostgreSQL's backends, the kernel's network work,
 * anything else running). Read from /proc (Linux) before and after the load; elsewhere it is
 * not measured.
 */
import { existsSync, readFileSync } from "node:fs";

/** Linux's USER_HZ: /proc reports CPU time in hundredths of a second. */
const TICKS_PER_SECOND = 100;

export interface CpuSplit {
  /** µs of CPU per answered request. */
  server: number;
  /** the part of `server` spent in the kernel (system calls: sockets above all). */
  serverSystem: number;
  generator: number;
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
    server: processSeconds(pid),
    serverSystem: processSystemSeconds(pid),
    generator: (own.user + own.system) / 1e6,
    machine: machineSeconds(),
  };
}

/** Starts measuring; the returned function ends it and divides by `requests`. */
export function measureCpu(pid: number | undefined): (requests: number) => CpuSplit | undefined {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return () => undefined;
  const before = read(pid);
  return (requests) => {
    if (requests <= 0) return undefined;
    const after = read(pid);
    const us = (seconds: number) => Math.round((seconds * 1e6) / requests);
    const server = after.server - before.server;
    const generator = after.generator - before.generator;
    const machine = after.machine - before.machine;
    return {
      server: us(server),
      serverSystem: us(after.serverSystem - before.serverSystem),
      generator: us(generator),
      rest: us(Math.max(0, machine - server - generator)),
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
    `PostgreSQL and kernel ${service.rest}${against((s) => s.rest)} µs, ` +
    `load generator ${service.generator}${against((s) => s.generator)} µs`
  );
}
