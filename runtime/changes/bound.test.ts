import { describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../../functions/core/device/index.ts';
import { endedChange } from '../../test/support/change-log.ts';
import { recordsBeyond } from './bound.ts';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const DAY = 86_400_000;

/** A log of the given records, by id. */
const logOf = (records: ChangeRecord[]) => new Map(records.map((record) => [record.id, record]));
/** Changes 1 to `count`, ended `daysAgo` days before `NOW`. */
const ended = (count: number, daysAgo = 0) => Array.from({ length: count }, (_, i) => endedChange(i + 1, new Date(NOW - daysAgo * DAY).toISOString()));
const never = () => false;

describe('recordsBeyond', () => {
  it('removes nothing while the log holds at most its bound, each change ended within its days', () => {
    expect(recordsBeyond(logOf(ended(200, 29.9)), { records: 200, days: 30 }, NOW, never)).toEqual([]);
  });

  it('removes the oldest ended records until a tenth of the bound is free, once the log holds more than its bound', () => {
    expect(recordsBeyond(logOf(ended(201)), { records: 200, days: 30 }, NOW, never)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(recordsBeyond(logOf(ended(7)), { records: 5, days: 30 }, NOW, never)).toEqual([1, 2]);
    expect(recordsBeyond(logOf(ended(2)), { records: 1, days: 30 }, NOW, never)).toEqual([1]);
  });

  it('removes every record of a change that ended more than its days ago, the newest too', () => {
    const log = logOf([...ended(3, 31), endedChange(4, new Date(NOW - 29 * DAY).toISOString())]);
    expect(recordsBeyond(log, { records: 200, days: 30 }, NOW, never)).toEqual([1, 2, 3]);
    expect(recordsBeyond(logOf(ended(3, 31)), { records: 200, days: 30 }, NOW, never)).toEqual([1, 2, 3]);
  });

  it('never removes a queued or running change, nor one busy says to keep, however old', () => {
    const log = logOf([
      { ...endedChange(1, '2020-01-01T00:00:00.000Z'), state: 'running' },
      { ...endedChange(2, '2020-01-01T00:00:00.000Z'), state: 'queued' },
      ...ended(6, 31).slice(2),
    ]);
    expect(recordsBeyond(log, { records: 2, days: 30 }, NOW, (id) => id === 3)).toEqual([4, 5, 6]);
  });

  it('removes the changes that ended longest ago, not those of the smallest ids: one that ended just now stays', () => {
    const log = logOf([{ ...endedChange(1, new Date(NOW).toISOString()) }, ...ended(6, 1).slice(1)]);
    expect(recordsBeyond(log, { records: 5, days: 30 }, NOW, never)).toEqual([2]);
  });

  it('counts only the changes that ended against the bound: a burst of queued changes removes nothing', () => {
    const queued = Array.from({ length: 300 }, (_, i) => ({ ...endedChange(201 + i), state: 'queued' as const }));
    expect(recordsBeyond(logOf([...ended(200), ...queued]), { records: 200, days: 30 }, NOW, never)).toEqual([]);
  });
});
