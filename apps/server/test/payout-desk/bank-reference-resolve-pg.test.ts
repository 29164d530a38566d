/**
 * On PostgreSQL, where two operators' resolutions really run side by side: one bank reference
 * sent at the same moment as the `paid` of two undecided withdraws of two merchants (no wallet
 * lock puts them in a line) pays one of them. The other answers 409 STATE_CONFLICT
 * (bank_reference_in_use) and stays processing with its hold: the reference's lock
 * (lifecycle/bank-references.ts) orders the two checks, whatever each saw before.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { startService, type TestService } from "../helpers/harness.ts";
import { createWithdraw, simulateWithdrawRequest } from "../helpers/lifecycle.ts";
import { describeOnPostgres } from "../helpers/store.ts";
import { fundedMerchant } from "../helpers/withdraws.ts";

const ROUNDS = 6;

describeOnPostgres("one bank reference resolved for two payouts at once (PostgreSQL)", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.close();
  });

  it("books the reference for one of them only", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const undecided = await Promise.all(
        [0, 1].map(async () => {
          const shop = await fundedMerchant(svc);
          const withdraw = await createWithdraw(svc, shop, { amount: "1500.00" });
          const sent = await simulateWithdrawRequest(svc, shop, withdraw.id, "indeterminate");
          assert.equal(sent.status, 200, JSON.stringify(sent.body));
          return withdraw.id as string;
        }),
      );
      const answers = await Promise.all(
        undecided.map((id, i) =>
          svc.admin("POST", `/admin/v1/withdraws/${id}/resolve`, {
            outcome: "paid",
            reason: "the bank's statement shows it paid",
            bankReference: i === 0 ? `KB-R${round}` : `kb-r${round}`,
          }),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, 409], `round ${round}: ${answers.map((a) => JSON.stringify(a.body))}`);
      const refused = answers.find((a) => a.status === 409)!;
      assert.equal(refused.body.error.metadata.reason, "bank_reference_in_use");
      const rows = await svc.deps.db
        .selectFrom("withdraws")
        .select("status")
        .where("id", "in", undecided)
        .execute();
      assert.deepEqual(rows.map((r) => r.status).sort(), ["paid", "processing"], "one paid, one still held");
    }
  });
});
