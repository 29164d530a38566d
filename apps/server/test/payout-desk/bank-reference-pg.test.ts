/**
 * On PostgreSQL, where recordings really run side by side: one bank reference recorded at the
 * same moment for two withdraws in two batches (no lock orders them) is booked for one of them
 * only. The other answers 409 STATE_CONFLICT (bank_reference_in_use) and moves nothing: the
 * unique index refuses the second write, whatever the service's own check saw.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { describeOnPostgres } from "../helpers/store.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

const ROUNDS = 6;

describeOnPostgres("payout desk bank references under concurrency (PostgreSQL)", () => {
  let svc: TestService;

  before(async () => {
    svc = await startService({ env: { SATANG_PAYOUTS: "manual" } });
  });
  after(async () => {
    await svc?.close();
  });

  /** One withdraw of `shop` alone in a batch of its own. */
  async function batchOfOne(shop: Credentials): Promise<{ batchId: string; withdrawId: string }> {
    svc.clock.advance(1000);
    const created = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "1000.00" }), {
      credentials: shop,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const batch = await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId });
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    return { batchId: batch.body.data.id, withdrawId: created.body.data.id };
  }

  async function paidEvents(withdrawId: string): Promise<number> {
    const rows = await svc.deps.db
      .selectFrom("events")
      .select("id")
      .where("object_id", "=", withdrawId)
      .where("type", "=", "withdraw.paid")
      .execute();
    return rows.length;
  }

  it("records one bank reference for one of two withdraws recorded at once in two batches", async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      // Two merchants, so no wallet lock puts the two recordings in a line either.
      const shops = [await fundedMerchant(svc, {}, 100_000n), await fundedMerchant(svc, {}, 100_000n)];
      const [x, y] = [await batchOfOne(shops[0]!), await batchOfOne(shops[1]!)];
      const reference = `RACE-${process.pid}-${Date.now()}-${round}`;
      const results = await Promise.all(
        [x!, y!].map(({ batchId, withdrawId }) =>
          svc.admin("POST", `/admin/v1/payout-batches/${batchId}/items/${withdrawId}/outcome`, {
            outcome: "paid",
            bankReference: reference,
          }),
        ),
      );
      const statuses = results.map((res) => res.status);
      assert.deepEqual(
        [...statuses].sort(),
        [200, 409],
        `round ${round}: ${JSON.stringify(results.map((r) => r.body))}`,
      );
      const loser = results.findIndex((res) => res.status === 409);
      const refused = results[loser]!.body.error;
      assert.equal(refused.code, "STATE_CONFLICT");
      assert.equal(refused.metadata.reason, "bank_reference_in_use");
      const [winnerItem, loserItem] = loser === 0 ? [y!, x!] : [x!, y!];
      assert.equal(refused.metadata.withdrawId, winnerItem.withdrawId);

      const status = async (shop: Credentials, id: string) =>
        (await svc.request("GET", `/api/v1/withdraws/${id}`, undefined, { credentials: shop })).body.data
          .status;
      const loserShop = loser === 0 ? shops[0]! : shops[1]!;
      const winnerShop = loser === 0 ? shops[1]! : shops[0]!;
      assert.equal(await status(winnerShop, winnerItem.withdrawId), "paid");
      assert.equal(
        await status(loserShop, loserItem.withdrawId),
        "processing",
        "the refused one moved nothing",
      );
      assert.equal(await paidEvents(winnerItem.withdrawId), 1);
      assert.equal(await paidEvents(loserItem.withdrawId), 0);
    }
    await assertLedgerConsistent(svc.deps.db);
  });
});
