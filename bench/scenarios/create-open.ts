/**
 * R2: create p99 at a fixed rate of half the baseline's closed-loop throughput / the baseline's
 * p99 at that rate (open loop, coordinated omission corrected), the baseline loaded at that rate
 * just before and just after the creates (their mean: bench/lib/load.ts `bracketed`).
 *
 * A row of its own (`R2+`) gives the same ratio for the requests after each load's first
 * START_SECONDS (they are in R2 too): a load that starts after ten seconds of quiet spends up to
 * two seconds on a start of its own (the load generator opening its connections and running its
 * send path cold beside the server on the two cores, the server's first groups small and slow),
 * and that start often sets the whole load's p99 by itself (docs/PERFORMANCE.md).
 */
import type { Context } from "../lib/context.ts";
import { bracketed, openLoop } from "../lib/load.ts";
import { goalRow, ms } from "../lib/report.ts";
import { baselineInsert, type PlainRequest } from "../lib/requests.ts";

const START_SECONDS = 2;

export async function runCreateOpenLoop(
  ctx: Context,
  baselineRps: number,
  make: () => PlainRequest,
): Promise<void> {
  const { seconds } = ctx.settings;
  const rate = Math.max(1, Math.round(baselineRps / 2));
  ctx.log(`R2: open loop at ${rate} req/s, baseline, create payment (v1), baseline`);
  const { results } = await bracketed(
    () => openLoop(ctx.baseline.url, baselineInsert, { rate, seconds, startSeconds: START_SECONDS }),
    [() => openLoop(ctx.satang.url, make, { rate, seconds, startSeconds: START_SECONDS })],
  );
  const { result: createOpen, base: baseOpen } = results[0]!;
  const unanswered = createOpen.unanswered ? `; ${createOpen.unanswered} unanswered (p99 a lower bound)` : "";
  const failed = `; failed ${createOpen.failed} / ${baseOpen.failed}`;
  ctx.rows.push(
    goalRow(
      "R2",
      `create p99 / baseline p99 at ${rate} req/s`,
      createOpen.p99 / baseOpen.p99,
      { atMost: 2 },
      `${ms(createOpen.p99)} / ${ms(baseOpen.p99)}; p50 ${ms(createOpen.p50)} / ${ms(baseOpen.p50)}${unanswered}${failed}`,
    ),
  );
  const [after, baseAfter] = [createOpen.afterStart, baseOpen.afterStart];
  if (after && baseAfter)
    ctx.rows.push(
      goalRow(
        "R2+",
        `the same after each load's first ${START_SECONDS} s, p99 / baseline p99`,
        after.p99 / baseAfter.p99,
        {},
        `${ms(after.p99)} / ${ms(baseAfter.p99)}; p50 ${ms(after.p50)} / ${ms(baseAfter.p50)}`,
      ),
    );
}
