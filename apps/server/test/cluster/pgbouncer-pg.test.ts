/**
 * Several nodes on one PostgreSQL through PgBouncer in transaction-pooling mode (Debian's
 * pgbouncer, started here): two API nodes (`serve --no-workers`) and two `satang worker`
 * processes, DATABASE_URL through PgBouncer, DATABASE_DIRECT_URL straight to PostgreSQL for
 * LISTEN, the rate limit in Redis. All four start at once on an empty database, so their
 * migrations race through the pooler as well.
 *
 * A mixed workload goes over both nodes, then every invariant is checked in the database (the
 * chaos harness's checks) and at the webhook receiver. PostgreSQL only (left out of the
 * embedded run); on PostgreSQL a missing PgBouncer fails the suite, it never skips it.
 *
 * The waits are bounded deadlines for work to finish; the one timed assertion is the
 * contract's: a revoked key is refused on every node within one second.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { Redis } from "ioredis";
import { sql } from "kysely";
import { checkInvariants } from "../../../../reliability/chaos-check.ts";
import { Client, type Merchant, runWorkload, Tally } from "../../../../reliability/chaos-workload.ts";
import { RATE_LIMIT_REDIS_NAMESPACE } from "../../src/http/rate-limit.ts";
import {
  createMerchant,
  paymentsOnEveryNode,
  racingWithdraws,
  sendAnswered,
  type TestMerchant,
} from "../helpers/cluster-workload.ts";
import { ADMIN_TOKEN, type Deployment, startDeployment } from "../helpers/deployment.ts";
import { pgbouncerPath } from "../helpers/pgbouncer.ts";
import { waitFor } from "../helpers/processes.ts";
import { describeOnPostgres } from "../helpers/store.ts";

const RATE_LIMIT = 300;
const WORKLOAD_REQUESTS = 400;

describeOnPostgres("two API nodes and two workers through PgBouncer (transaction pooling)", () => {
  let deployment: Deployment;
  const tally = new Tally();
  let clients: Client[];
  const merchants: Merchant[] = [];

  before(async () => {
    pgbouncerPath();
    // Fewer server connections than the processes' pools together: statements of different
    // processes share server connections, which is what transaction pooling is for.
    deployment = await startDeployment({
      apiNodes: 2,
      workers: 2,
      rateLimitPerMinute: RATE_LIMIT,
      poolSize: 6,
    });
    clients = deployment.api.map((url) => new Client(() => url, tally));
  });
  after(async () => {
    await deployment?.close();
  });

  async function merchant(spec: Parameters<typeof createMerchant>[1]): Promise<TestMerchant> {
    const created = await createMerchant(clients[merchants.length % clients.length] as Client, spec);
    merchants.push(created);
    return created;
  }

  it("keeps every money rule under a mixed workload spread over both nodes", async (t) => {
    const webhookUrl = deployment.receiver.url;
    const busy = await Promise.all(
      [1, 2, 3, 4].map(() =>
        merchant({ dailyLimit: "20000.00", monthlyLimit: "60000.00", funding: "+500000.00", webhookUrl }),
      ),
    );
    // One wallet that its balance bounds (10 withdraws of 1000), one that its daily limit does (5).
    const balanceBound = await merchant({
      dailyLimit: "900000.00",
      monthlyLimit: "900000.00",
      funding: "+10000.00",
      webhookUrl,
    });
    const limitBound = await merchant({
      dailyLimit: "5000.00",
      monthlyLimit: "900000.00",
      funding: "+100000.00",
      webhookUrl,
    });
    const payer = await merchant({ dailyLimit: "20000.00", monthlyLimit: "60000.00", webhookUrl });

    let next = 0;
    const roundRobin = new Client(() => deployment.api[next++ % deployment.api.length] as string, tally);
    const stopAt = tally.requests + WORKLOAD_REQUESTS;
    const [, payments, byBalance, byLimit] = await Promise.all([
      runWorkload(roundRobin, busy, 4, () => tally.requests >= stopAt),
      paymentsOnEveryNode(clients, payer, tally, 12),
      racingWithdraws(clients, balanceBound, tally, 25, "1000.00"),
      racingWithdraws(clients, limitBound, tally, 25, "1000.00"),
    ]);

    assert.deepEqual(payments.conflicts, [], "a key sent to both nodes was answered with two payments");
    for (const statuses of payments.statuses)
      assert.ok(
        statuses.every((s) => s === 200 || s === 201),
        `payment answers ${statuses}`,
      );
    assert.deepEqual(byBalance, { admitted: 10, refused: { "400 INSUFFICIENT_BALANCE": 15 } });
    assert.deepEqual(byLimit, { admitted: 5, refused: { "400 INVALID_INPUT": 20 } });

    await completePayments(clients, payer, payments.paymentIds);
    await everyWithdrawDispatched(deployment);
    await completeWithdraws(deployment, clients, merchants);
    await everyEventDelivered(deployment, merchants);
    const results = await checkInvariants(deployment.store.db, merchants, tally);
    for (const result of results) assert.ok(result.ok, `${result.name}: ${result.problems.join("; ")}`);
    assert.ok(tally.acknowledged.length > 50, `only ${tally.acknowledged.length} writes acknowledged`);
    assert.deepEqual(tally.serverErrors, [], "answers with a 5xx other than 503");
    assert.deepEqual(tally.keyConflicts, []);
    for (const [i, proc] of deployment.processes.entries())
      assert.deepEqual(errorLines(proc.output()), [], `process ${i} logged errors`);
    t.diagnostic(
      `${tally.requests} requests, ${tally.acknowledged.length} writes acknowledged, ` +
        `${deployment.receiver.received.length} webhook deliveries; by status ${JSON.stringify(tally.byStatus)}`,
    );
  });

  it("admits exactly the per-integration limit of a burst split over both nodes", async () => {
    const target = await merchant({ dailyLimit: "1000.00", monthlyLimit: "1000.00" });
    const total = RATE_LIMIT + 60;
    const byStatus: Record<number, number> = {};
    let sent = 0;
    await Promise.all(
      Array.from({ length: 24 }, async (_, lane) => {
        const client = clients[lane % clients.length] as Client;
        while (sent < total) {
          sent += 1;
          const answer = await sendAnswered(client, "GET", "/api/v1/balance", undefined, target);
          byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
        }
      }),
    );
    // Every request was counted in one window in Redis (a burst longer than the 60 s window
    // would show here, not as a wrong admission count).
    const redis = new Redis(deployment.redisUrl);
    try {
      const keys = await redis.keys(`${RATE_LIMIT_REDIS_NAMESPACE}*${target.integrationId}*`);
      assert.equal(keys.length, 1, `rate-limit keys ${keys}`);
      assert.equal(Number(await redis.get(keys[0] as string)), total);
    } finally {
      redis.disconnect();
    }
    assert.deepEqual(byStatus, { 200: RATE_LIMIT, 429: total - RATE_LIMIT });
  });

  it("refuses a key revoked on one node on the other within one second", async () => {
    const target = await merchant({ dailyLimit: "1000.00", monthlyLimit: "1000.00" });
    const [first, second] = clients as [Client, Client];
    for (const client of [first, second]) {
      for (let i = 0; i < 3; i++) {
        assert.equal((await sendAnswered(client, "GET", "/api/v1/balance", undefined, target)).status, 200);
      }
    }
    const revoke = await fetch(`${deployment.api[0]}/admin/v1/integrations/${target.integrationId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(revoke.status, 200);
    assert.equal((await sendAnswered(first, "GET", "/api/v1/balance", undefined, target)).status, 401);
    const deadline = Date.now() + 1000;
    let status = 200;
    while (Date.now() < deadline) {
      status = (await sendAnswered(second, "GET", "/api/v1/balance", undefined, target)).status;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(status, 401, "the other node still accepted the key one second after the revoke");
  });
});

/** Log lines at error level or above (pino: 50 error, 60 fatal). */
function errorLines(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
}

/** The customer pays every payment (sandbox), on alternating nodes. */
async function completePayments(clients: Client[], payer: Merchant, ids: string[]): Promise<void> {
  for (const [i, id] of ids.entries()) {
    const client = clients[i % clients.length] as Client;
    const path = `/api/v1/sandbox/payments/${id}/simulate`;
    const done = await sendAnswered(client, "POST", path, { outcome: "succeeded" }, payer);
    assert.equal(done.status, 200, done.text);
  }
}

/** Waits until the workers have handed every admitted withdraw to the (sandbox) bank. */
async function everyWithdrawDispatched(deployment: Deployment): Promise<void> {
  await waitFor(
    "the workers to hand every withdraw to the bank",
    async () => {
      const row = await sql<{ pending: number; unsent: number }>`
        select (select count(*) from withdraws where status = 'pending')::int as pending,
          (select count(*) from withdraws w left join payouts p on p.withdraw_id = w.id
            where w.status = 'processing' and p.state is distinct from 'accepted')::int as unsent`.execute(
        deployment.store.db,
      );
      const counts = row.rows[0];
      return counts?.pending === 0 && counts.unsent === 0;
    },
    90_000,
  );
}

/** The bank's outcome for every withdraw in flight, on alternating nodes: paid, one in four failed. */
async function completeWithdraws(
  deployment: Deployment,
  clients: Client[],
  merchants: Merchant[],
): Promise<void> {
  const byId = new Map(merchants.map((m) => [m.id, m]));
  const inFlight = await deployment.store.db
    .selectFrom("withdraws")
    .select(["id", "merchant_id"])
    .where("status", "=", "processing")
    .orderBy("id")
    .execute();
  assert.ok(inFlight.length > 10, `only ${inFlight.length} withdraws reached the bank`);
  await Promise.all(
    clients.map(async (client, lane) => {
      for (let i = lane; i < inFlight.length; i += clients.length) {
        const row = inFlight[i] as (typeof inFlight)[number];
        const body = { outcome: i % 4 === 3 ? "failed" : "paid" };
        const path = `/api/v1/sandbox/withdraws/${row.id}/simulate`;
        const answer = await sendAnswered(client, "POST", path, body, byId.get(row.merchant_id) as Merchant);
        assert.equal(answer.status, 200, answer.text);
      }
    }),
  );
}

/** Waits until the receiver has had every event of the test's merchants, then says which it lacks. */
async function everyEventDelivered(deployment: Deployment, merchants: Merchant[]): Promise<void> {
  const ids = merchants.map((m) => m.id);
  const missing = async () => {
    const events = await sql<{ id: string }>`select id from events where merchant_id = any(${ids})`.execute(
      deployment.store.db,
    );
    const received = new Set(deployment.receiver.received.map((r) => r.headers["webhook-id"]));
    return {
      total: events.rows.length,
      missing: events.rows.map((r) => r.id).filter((id) => !received.has(id)),
    };
  };
  await waitFor(
    "every event to reach the receiver",
    async () => (await missing()).missing.length === 0,
    90_000,
  ).catch(() => {});
  const { total, missing: lacking } = await missing();
  assert.ok(total > 20, `only ${total} events`);
  assert.deepEqual(lacking, [], `${lacking.length} of ${total} events never delivered`);
}
