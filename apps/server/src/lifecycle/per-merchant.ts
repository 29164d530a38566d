/**
 * Batch jobs that move money (settlement, verification expiry) post to the merchants' ledger
 * accounts, and a posting waits for the account's row lock. One transaction over several
 * merchants would make every merchant in it wait for the slowest one: a lock held on one
 * merchant's wallet (an operator's long transaction, a stuck request) would hold up another
 * merchant's settlement and, through the rows that settlement had already locked, that
 * merchant's own requests. So a job finds the merchants with due work first, without locking,
 * and then runs each merchant's batch in its own transaction (CONTRACT 14: isolation between
 * merchants).
 */

/**
 * Runs `work` for each merchant in turn; one merchant's failure does not stop the others, and
 * the first failure is thrown once all have run (the job runner logs it). Returns how many
 * items the merchants' batches handled.
 */
export async function eachMerchant(
  merchantIds: readonly string[],
  work: (merchantId: string) => Promise<number>,
): Promise<number> {
  let handled = 0;
  let failure: { error: unknown } | undefined;
  for (const merchantId of merchantIds) {
    try {
      handled += await work(merchantId);
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
  return handled;
}
