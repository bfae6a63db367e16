import type { ChangeRecord } from '../../functions/core/device.ts';

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
