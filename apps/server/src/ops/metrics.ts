/**
 * Prometheus metrics: the standard process and Node.js metrics, plus a request counter and a
 * latency histogram labelled by method, route pattern and status code.
 *
 * Process metrics describe the process, so they are collected once per process, while the HTTP
 * metrics belong to one app: tests build many apps in one process, and each must count only
 * its own requests. The route label is the pattern (`/api/v1/payments/:payment_id`), never the
 * raw URL, so ids do not multiply the series; requests that matched no route share one label.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

let processRegistry: Registry | undefined;

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const UNMATCHED_ROUTE = "unmatched";

/** One connector's circuit breaker as the router reports it (providers/routing/breaker.ts). */
export interface ConnectorBreaker {
  connector: string;
  state: "closed" | "half_open" | "open";
  /** The gauge's value: 0 closed, 1 half-open, 2 open. */
  gauge: number;
}

const LABELS = ["method", "route", "status_code"] as const;

export class HttpMetrics {
  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;
  private readonly registry = new Registry();
  private readonly requests = new Counter({
    name: "satang_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status code",
    labelNames: LABELS,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: "satang_http_request_duration_seconds",
    help: "Time from receiving a request to finishing its response, in seconds",
    labelNames: LABELS,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /**
   * `undecidedPayouts` counts the payouts undecided past PAYOUT_UNDECIDED_ALERT_S (CONTRACT 15),
   * read from the database at each scrape: every process of a deployment reports the same count.
   */
  constructor(
    options: {
      undecidedPayouts?: (() => Promise<number>) | undefined;
      connectorBreakers?: (() => ConnectorBreaker[]) | undefined;
    } = {},
  ) {
    processMetrics();
    const breakers = options.connectorBreakers;
    if (breakers) {
      new Gauge({
        name: "satang_connector_breaker_state",
        help: "Each live connector's circuit breaker in this process: 0 closed, 1 half-open (one probe), 2 open (skipped for new payments)",
        labelNames: ["connector"],
        registers: [this.registry],
        collect() {
          for (const { connector, gauge } of breakers()) this.set({ connector }, gauge);
        },
      });
    }
    const count = options.undecidedPayouts;
    if (count) {
      new Gauge({
        name: "satang_payouts_undecided",
        help: "Payouts a connector holds undecided for longer than PAYOUT_UNDECIDED_ALERT_S (the operator must resolve them)",
        registers: [this.registry],
        async collect() {
          this.set(await count());
        },
      });
    }
  }

  /** An onResponse hook: the reply is finished, so its status and elapsed time are final. */
  observe(request: FastifyRequest, reply: FastifyReply): void {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? UNMATCHED_ROUTE,
      status_code: String(reply.statusCode),
    };
    this.requests.inc(labels);
    this.duration.observe(labels, reply.elapsedTime / 1000);
  }

  async render(): Promise<string> {
    const [process, http] = await Promise.all([processMetrics().metrics(), this.registry.metrics()]);
    // The exposition format writes an unknown value `NaN`; prom-client writes `Nan`.
    return `${process.trimEnd()}\n\n${http}`.replace(/ Nan$/gm, " NaN");
  }
}
