import type { Db } from "../db/handles.ts";
import type { Merchant, MerchantUpdate, NewMerchant } from "../db/types.ts";

export async function insertMerchant(db: Db, row: NewMerchant): Promise<Merchant> {
  return db.insertInto("merchants").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findMerchant(db: Db, id: string): Promise<Merchant | undefined> {
  return db.selectFrom("merchants").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function updateMerchantRow(
  db: Db,
  id: string,
  changes: MerchantUpdate,
): Promise<Merchant | undefined> {
  return db.updateTable("merchants").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
}

export async function countMerchants(db: Db): Promise<number> {
  const row = await db
    .selectFrom("merchants")
    .select((eb) => eb.fn.countAll<bigint>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
