import type { ChangeRecord } from '../../functions/core/device/index.ts';

/** How many change records a device keeps, and for how long: the bound of its change log. */
export interface ChangeLogBound {
  /** At most this many records of changes that ended; those of changes still queued or running are kept besides. */
  records: number;
  /** The record of a change that ended (succeeded or failed) goes this many days after it ended (its `updated`). */
  days: number;
}

/** 200 records, 30 days (docs/decisions/0041-a-bounded-change-log.md says why): the same on `serve` and in the emulator. */
export const DEFAULT_CHANGE_LOG_BOUND: Readonly<ChangeLogBound> = Object.freeze({ records: 200, days: 30 });

const DAY_MS = 86_400_000;

/**
 * The ids of the records to remove to keep `records` within `bound` at `now` (ms since the epoch),
 * the change that ended longest ago (its `updated`) first: each one that ended more than
 * `bound.days` ago, and, once more than `bound.records` changes that ended are kept, the longest
 * ended until a tenth of the bound is free again, so that records go in one removal every tenth of
 * the bound in changes rather than one a change. A change that has just ended is the last to go,
 * whatever its id: a client that follows it reads how it ended. A queued or running change is never
 * among them, nor one `busy` names (a save of it under way).
 *
 * @example
 * recordsBeyond(log.records, { records: 200, days: 30 }, Date.now(), () => false) // [] at 200 ended changes; 21 ids at 201
 */
export function recordsBeyond(records: ReadonlyMap<number, ChangeRecord>, bound: ChangeLogBound, now: number, busy: (id: number) => boolean): number[] {
  const endedBefore = now - bound.days * DAY_MS;
  const ended = [...records.values()]
    .filter((record) => record.state !== 'queued' && record.state !== 'running')
    .map((record) => ({ id: record.id, at: Date.parse(record.updated) || 0 }))
    .sort((a, b) => a.at - b.at || a.id - b.id);
  let excess = ended.length > bound.records ? ended.length - (bound.records - Math.floor(bound.records / 10)) : 0;
  const beyond: number[] = [];
  for (const { id, at } of ended) {
    if (busy(id)) continue;
    if (excess > 0 || at < endedBefore) {
      beyond.push(id);
      excess--;
    }
  }
  return beyond;
}
