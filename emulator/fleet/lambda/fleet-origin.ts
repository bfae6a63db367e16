import type { DeviceStore } from './device-store.ts';

/** The key of the fleet's own item in its table: no device id (`router-<index>`) can be it. */
export const FLEET_ITEM = '#fleet';

/**
 * When the fleet started, in ms since the epoch: the time its devices' replays start from (their
 * clocks' elapsed time, as every device of `emulate --fleet` starts with the process). The first
 * invocation of any of its functions stores it; every other reads it, once per instance.
 *
 * @param now the time to store when none is yet.
 * @example
 * const origin = await fleetOrigin(store, Date.now()); // the same on every instance
 */
export async function fleetOrigin(store: DeviceStore, now: number): Promise<number> {
  const stored = await store.read(FLEET_ITEM);
  if (stored !== null) return startedOf(stored.document);
  if (await store.write(FLEET_ITEM, { started: now }, null)) return now;
  // Another instance stored it first: its time is the fleet's.
  const first = await store.read(FLEET_ITEM);
  if (first === null) throw new Error(`the fleet's item ${FLEET_ITEM} was written and is gone`);
  return startedOf(first.document);
}

function startedOf(document: unknown): number {
  const started = (document as { started?: unknown } | null)?.started;
  if (typeof started !== 'number' || !Number.isSafeInteger(started)) throw new Error(`the fleet's item ${FLEET_ITEM} has no start time`);
  return started;
}
