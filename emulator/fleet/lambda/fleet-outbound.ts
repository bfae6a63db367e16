import type { Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { instanceFleet } from './instance-fleet.ts';
import { runShard, type Shard, type ShardSummary } from './outbound-shard.ts';

/**
 * The outbound handler of a fleet on Lambda (docs/bundles.md#a-fleet-on-lambda), built as
 * `dist/fleet-outbound.mjs`: a schedule per shard invokes it every minute with `{shard, shards}`, and
 * it provisions and sends the telemetry of that shard's devices (`runShard`), which no timer can do
 * on Lambda. Its environment is the endpoint functions' (`CHUTEBOX_FLEET_TABLE`, …).
 */

const whole = (least: number) => z.int({ error: `must be a whole number from ${least}` }).check(z.minimum(least, `must be a whole number from ${least}`));

const ShardSchema = z.object({ shard: whole(0), shards: whole(1) });

/**
 * Runs the outbound work of the shard the event names, and answers what it did (and logs it, one JSON line).
 *
 * @throws Error naming the field of an event that names no shard; nothing is read or written.
 * @example
 * await handler({ shard: 0, shards: 10 }, context); // { shard: 0, shards: 10, devices: 1000, provisioned: 3, delivered: 990, failed: 0, left: 0, errors: [] }
 */
export async function handler(event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>): Promise<ShardSummary> {
  const shard = outboundShard(event);
  const summary = await runShard(await instanceFleet(), shard, () => context.getRemainingTimeInMillis());
  // A schedule keeps no answer: the function's log line is where a run's summary is seen.
  console.log(JSON.stringify({ outbound: summary }));
  return summary;
}

/** The shard an event names, checked. */
function outboundShard(event: unknown): Shard {
  const checked = ShardSchema.safeParse(event);
  if (!checked.success) throw new Error(`the outbound event {shard, shards}: ${z.prettifyError(checked.error)}`);
  const { shard, shards } = checked.data;
  if (shard >= shards) throw new Error(`the outbound event {shard, shards}: shard must be below shards (${shards}), not ${shard}`);
  return { shard, shards };
}
