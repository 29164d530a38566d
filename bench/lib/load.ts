/**
 * Two load generators. Closed loop (autocannon): `connections` clients, each sending its next
 * request when the last is answered; gives throughput. Open loop: requests sent at a fixed
 * rate whether or not earlier ones were answered, each one's latency measured from the time
 * it was meant to be sent, so a stalled server is charged for every request that waited
 * behind it (coordinated omission corrected).
 *
 * Both build their requests (bodies, unique ids, HMAC signatures) before the load starts, for
 * the baseline and the service alike: the generator shares the machine's two cores with the
 * server and PostgreSQL, and signing while it loads would charge the service for the
 * generator's own work. A closed loop that outruns its prepared requests builds the rest as it
 * goes.
 */
import http from "node:http";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { type CpuSplit, measureCpu } from "./cpu.ts";
import { cannon, type PlainRequest } from "./requests.ts";

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
  /** Given the server's pid: the load's CPU per answered request. */
  cpu?: CpuSplit;
}

/** Requests per second a closed loop prepares for: more than any load here reaches. */
const PREPARED_RPS_PER_CONNECTION = 1_000;
const PREPARED_RPS_MAX = 14_000;

/** `count` requests made now, then handed out in order; `make` again once they run out. */
export function prepared(make: () => PlainRequest, count: number): () => PlainRequest {
  const ready = Array.from({ length: count }, make);
  let next = 0;
  return () => (next < ready.length ? ready[next++]! : make());
}

export async function closedLoop(
  url: string,
  make: () => PlainRequest,
  options: { connections: number; seconds: number; pid?: number },
): Promise<Measured> {
  const rate = Math.min(PREPARED_RPS_MAX, options.connections * PREPARED_RPS_PER_CONNECTION);
  const requests = prepared(make, Math.ceil(rate * options.seconds));
  const cpu = await measureCpu(options.pid);
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    requests: [cannon(requests)],
  });
  const ok = result["2xx"];
  const split = await cpu(ok);
  return {
    rps: Math.round(ok / options.seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok,
    failed: result.non2xx + result.errors + result.timeouts,
    ...(split ? { cpu: split } : {}),
  };
}

/**
 * Each measured load against the baseline loaded just before it and just after it (B M1 B M2 B
 * ...: one more baseline load than measured ones). This machine's speed drifts over a run by a
 * fifth or more, from one ten-second load to the next, so a baseline loaded once at the start
 * set each later row against a machine that was no longer there; the mean of the loads on either
 * side of a measured one moves with the drift as the measured load does. The baseline loads also
 * give `all`, their mean over the whole run.
 */
export async function bracketed<B extends Measured, T>(
  baseline: () => Promise<B>,
  loads: readonly (() => Promise<T>)[],
): Promise<{ results: { result: T; base: B }[]; all: B }> {
  const bases = [await baseline()];
  const results: { result: T; base: B }[] = [];
  for (const load of loads) {
    const result = await load();
    bases.push(await baseline());
    results.push({ result, base: meanOf(bases.slice(-2)) });
  }
  return { results, all: meanOf(bases) };
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Several loads of one kind as one: the mean rate, p50, p99 and CPU per request (each CPU figure
 * the mean of the loads' own, as each is per request already); answered, failed and (open loops)
 * unanswered requests summed, and (open loops given a start) the mean p50 and p99 after it.
 */
export function meanOf<M extends Measured>(loads: readonly M[]): M {
  const first = loads[0];
  if (!first) throw new Error("meanOf needs at least one load");
  const cpus = loads.flatMap((load) => (load.cpu ? [load.cpu] : []));
  const cpu =
    cpus.length === loads.length
      ? (Object.fromEntries(
          (Object.keys(first.cpu!) as (keyof CpuSplit)[]).map((key) => [
            key,
            Math.round(mean(cpus.map((split) => split[key]))),
          ]),
        ) as unknown as CpuSplit)
      : undefined;
  const merged: Measured = {
    rps: Math.round(mean(loads.map((load) => load.rps))),
    p50: Math.round(mean(loads.map((load) => load.p50)) * 10) / 10,
    p99: Math.round(mean(loads.map((load) => load.p99)) * 10) / 10,
    ok: loads.reduce((sum, load) => sum + load.ok, 0),
    failed: loads.reduce((sum, load) => sum + load.failed, 0),
    ...(cpu ? { cpu } : {}),
  };
  const unanswered = loads.map((load) => (load as Partial<OpenLoopResult>).unanswered);
  if (unanswered.every((count) => count !== undefined))
    (merged as OpenLoopResult).unanswered = unanswered.reduce((sum, count) => sum + count, 0);
  const afters = loads.map((load) => (load as Partial<OpenLoopResult>).afterStart);
  if (afters.every((after) => after !== undefined))
    (merged as OpenLoopResult).afterStart = {
      p50: Math.round(mean(afters.map((after) => after.p50)) * 10) / 10,
      p99: Math.round(mean(afters.map((after) => after.p99)) * 10) / 10,
    };
  return { ...first, ...merged };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function send(agent: http.Agent, url: URL, request: PlainRequest): Promise<number> {
  return new Promise((resolve) => {
    const outgoing = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers: request.headers,
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on("error", () => resolve(0));
    outgoing.end(request.body);
  });
}

/**
 * A closed loop timed here rather than by autocannon, whose latencies are whole milliseconds: for
 * the p50 of a few connections (R6, R7), which on a fast machine is well under a millisecond and
 * would read 0 / 0. `connections` clients each send the next request when the last is answered,
 * for `seconds`; latency from send to the answer's end, in fractions of a millisecond.
 */
export async function timedLoop(
  url: string,
  make: () => PlainRequest,
  options: { connections: number; seconds: number },
): Promise<Measured> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const end = performance.now() + options.seconds * 1000;
  const client = async () => {
    while (performance.now() < end) {
      const request = make();
      const sent = performance.now();
      const status = await send(agent, target, request);
      latencies.push(performance.now() - sent);
      if (status >= 200 && status < 300) ok += 1;
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: options.connections }, client));
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: Math.round(ok / options.seconds),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    ok,
    failed,
  };
}

export interface OpenLoopResult extends Measured {
  /** Requests still unanswered when the drain wait ended: counted at that wait's end. */
  unanswered: number;
  /**
   * The latencies of the requests after the first `startSeconds` (in the figures above too);
   * undefined without a start, or when the start is the whole load.
   */
  afterStart: { p50: number; p99: number } | undefined;
}

/**
 * Open connections of an open loop, the baseline's and the service's alike: under the service's
 * cap per client address (HTTP_CONNECTIONS_PER_ADDRESS_MAX, 100 by default), which closes a
 * connection past it at once. Requests that find every connection busy wait in the client for
 * one, and that wait is in their latency (measured from the intended send time).
 */
const OPEN_LOOP_SOCKETS = 64;

/**
 * `BENCH_OPEN_TIMELINE=1`: each half second of an open loop's intended send times, its requests'
 * p50, p99 and worst latency, on stderr (where in the load its tail came from).
 */
function printTimeline(url: string, latencies: Float64Array, rate: number, start: number): void {
  const per = Math.max(1, Math.round(rate / 2));
  const parts: string[] = [];
  for (let from = 0; from < latencies.length; from += per) {
    const window = latencies.slice(from, from + per).sort();
    parts.push(
      `${(from / rate).toFixed(1)}s ${percentile(window, 50).toFixed(0)}/${percentile(window, 99).toFixed(0)}/${window[window.length - 1]!.toFixed(0)}`,
    );
  }
  console.error(
    `open loop ${url} from ${new Date(performance.timeOrigin + start).toISOString()} (p50/p99/max ms per half second): ${parts.join("  ")}`,
  );
}

/**
 * Sends `rate` requests per second for `seconds`; latency from each intended send time. With
 * `startSeconds`, the figures of the requests after that start are returned apart as well
 * (`afterStart`), where the load's tail came from.
 */
export async function openLoop(
  url: string,
  make: () => PlainRequest,
  options: { rate: number; seconds: number; startSeconds?: number; sockets?: number; drainSeconds?: number },
): Promise<OpenLoopResult> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.sockets ?? OPEN_LOOP_SOCKETS });
  const total = Math.max(1, Math.round(options.rate * options.seconds));
  const starting = Math.min(total, Math.round(options.rate * (options.startSeconds ?? 0)));
  const requests = prepared(make, total);
  const latencies = new Float64Array(total).fill(Number.NaN);
  const statuses = new Uint16Array(total);
  const start = performance.now() + 20;
  let sent = 0;
  const pending: Promise<void>[] = [];
  while (sent < total) {
    const now = performance.now();
    while (sent < total && start + (sent * 1000) / options.rate <= now) {
      const index = sent;
      const intended = start + (index * 1000) / options.rate;
      pending.push(
        send(agent, target, requests()).then((status) => {
          latencies[index] = performance.now() - intended;
          statuses[index] = status;
        }),
      );
      sent += 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const drainMs = (options.drainSeconds ?? 10) * 1000;
  await Promise.race([Promise.all(pending), new Promise((resolve) => setTimeout(resolve, drainMs))]);
  const cutoff = performance.now();
  let unanswered = 0;
  for (let i = 0; i < total; i += 1) {
    if (Number.isNaN(latencies[i]!)) {
      unanswered += 1;
      latencies[i] = cutoff - (start + (i * 1000) / options.rate);
    }
  }
  agent.destroy();
  if (process.env.BENCH_OPEN_TIMELINE) printTimeline(url, latencies, options.rate, start);
  const ok = statuses.filter((s) => s >= 200 && s < 300).length;
  const sorted = latencies.slice().sort();
  const after = latencies.slice(starting).sort();
  const tenth = (value: number) => Math.round(value * 10) / 10;
  return {
    rps: options.rate,
    p50: tenth(percentile(sorted, 50)),
    p99: tenth(percentile(sorted, 99)),
    ok,
    failed: total - ok,
    unanswered,
    afterStart:
      starting > 0 && starting < total
        ? { p50: tenth(percentile(after, 50)), p99: tenth(percentile(after, 99)) }
        : undefined,
  };
}
