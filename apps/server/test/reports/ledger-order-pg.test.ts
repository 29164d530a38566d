/**
 * On PostgreSQL, where postings to one account really race: withdraws of one merchant created at
 * once, then canceled at once, wait for one another's account locks, and the ledger export still
 * lists each account's entries in the order their balances were applied (migration 0119 numbers
 * an entry while it holds its account's lock): each `balance_after_thb` is the one before it plus
 * `amount_thb`, and each account's last row is its balance.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { ledgerCsvRecords } from "../helpers/csv.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { HOUR_MS } from "../helpers/lifecycle.ts";
import { describeOnPostgres } from "../helpers/store.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

const satangOf = (thb: string) => BigInt(thb.replace(".", ""));

describeOnPostgres("the ledger export after racing postings (PostgreSQL)", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService({ poolSize: 12 });
  });
  after(async () => {
    await svc?.close();
  });

  it("follows each account's balance down the file", async () => {
    const shop = await fundedMerchant(svc, {}, 10_000_000n);
    for (let round = 0; round < 3; round++) {
      const created = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: `${1000 + round * 20 + i}.00` }), {
            credentials: shop,
          }),
        ),
      );
      for (const res of created) assert.equal(res.status, 201, JSON.stringify(res.body));
      const canceled = await Promise.all(
        created.map((res) =>
          svc.request("POST", `/api/v1/withdraws/${res.body.data.id}/cancel`, undefined, {
            credentials: shop,
          }),
        ),
      );
      for (const res of canceled) assert.equal(res.status, 200, JSON.stringify(res.body));
    }

    const now = svc.clock.now().getTime();
    const rows = await ledgerCsvRecords(svc, shop, new Date(now - HOUR_MS), new Date(now + HOUR_MS));
    const last = new Map<string, bigint>();
    let checked = 0;
    for (const row of rows) {
      const before = last.get(row.account!);
      const after = satangOf(row.balance_after_thb!);
      if (before !== undefined) {
        assert.equal(after, before + satangOf(row.amount_thb!), `${row.account} at ${row.entry_id}`);
        checked += 1;
      }
      last.set(row.account!, after);
    }
    assert.ok(checked >= 140, `only ${checked} rows followed their account's previous one`);
    const balance = await svc.request("GET", "/api/v1/balance", undefined, { credentials: shop });
    assert.equal(
      last.get("wallet_available"),
      BigInt(balance.body.data.walletBalance),
      "the last row is the balance",
    );
    assert.equal(last.get("wallet_held"), 0n, "nothing is held");
  });
});
