import type { ChangeRecord } from '../../functions/core/device/index.ts';

const T0 = '2026-11-21T12:00:00.000Z';
const T1 = '2026-11-21T12:00:01.500Z';

/**
 * A device's change log for the change endpoint tests: a failed chute change, a running and a
 * succeeded one, and a queued change of the device itself (`chute: null`), oldest first.
 */
export const CHANGES: ChangeRecord[] = [
  {
    id: 1,
    action: 'update-config',
    chute: 'hello',
    state: 'failed',
    created: T0,
    updated: T1,
    messages: [
      { time: T0, text: 'queued' },
      { time: T1, text: 'failed: image chutebox/hello:2 is missing; the previous configuration is restored' },
    ],
  },
  { id: 2, action: 'start', chute: 'hello', state: 'running', created: T1, updated: T1, messages: [{ time: T1, text: 'queued' }] },
  { id: 3, action: 'install', chute: 'lab', state: 'succeeded', created: T1, updated: T1, messages: [{ time: T1, text: 'queued' }] },
  { id: 4, action: 'update-hostconfig', chute: null, state: 'queued', created: T1, updated: T1, messages: [{ time: T1, text: 'queued' }] },
];

/**
 * A change that succeeded, with id `id`, that ended at `updated` (default the time of `CHANGES`): a
 * record of a long log, for tests of its pages and its bound.
 *
 * @example
 * Array.from({ length: 120 }, (_, i) => endedChange(i + 1)) // changes 1 to 120, oldest first
 */
export function endedChange(id: number, updated = T1): ChangeRecord {
  return { id, action: 'stop', chute: 'hello', state: 'succeeded', created: updated, updated, messages: [{ time: updated, text: 'succeeded' }] };
}
