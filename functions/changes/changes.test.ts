import { describe, expect, it } from 'vitest';
import { callChute } from '../../test/chute-devices.ts';
import { memoryDevice } from '../../test/memory-device.ts';
import type { ChangeRecord } from '../core/device.ts';
import * as change from './change.ts';
import * as list from './list.ts';

const T0 = '2026-11-21T12:00:00.000Z';
const T1 = '2026-11-21T12:00:01.500Z';

const CHANGES: ChangeRecord[] = [
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

describe('GET /api/v1/changes/', () => {
  it('responds with 200 and every change record, oldest first', async () => {
    expect(await callChute(list, memoryDevice({ changes: CHANGES }), {})).toEqual({ status: 200, body: CHANGES });
  });

  it('responds with 200 and [] on a device without changes, then lists a change once one is queued', async () => {
    const device = memoryDevice({ chutes: { hello: {} } });
    expect(await callChute(list, device, {})).toEqual({ status: 200, body: [] });
    await device.submitChange({ action: 'stop', chute: 'hello' });
    expect(await callChute(list, device, {})).toMatchObject({ status: 200, body: [{ id: 1, action: 'stop', chute: 'hello', state: 'queued' }] });
  });
});

describe('GET /api/v1/changes/:id', () => {
  it('responds with 200 and the change with that id', async () => {
    const device = memoryDevice({ changes: CHANGES });
    expect(await callChute(change, device, { id: '1' })).toEqual({ status: 200, body: CHANGES[0] });
    expect(await callChute(change, device, { id: '2' })).toEqual({ status: 200, body: CHANGES[1] });
  });

  it('responds with 200 and a change of the device itself, with a null chute', async () => {
    expect(await callChute(change, memoryDevice({ changes: CHANGES }), { id: '4' })).toEqual({ status: 200, body: CHANGES[3] });
  });

  it('responds with 404 for an id no change has', async () => {
    const device = memoryDevice({ changes: CHANGES });
    for (const id of ['5', '0', '999999999999999']) {
      const { status, body } = await callChute<{ detail: string }>(change, device, { id });
      expect(status).toBe(404);
      expect(body.detail).toContain(id);
    }
  });

  it('responds with 400 naming params.id for an id that is not a whole number', async () => {
    for (const id of ['abc', '-1', '1.5', '1e3', '', '9999999999999999']) {
      expect(await callChute(change, memoryDevice({ changes: CHANGES }), { id }), id).toMatchObject({
        status: 400,
        body: { errors: [{ path: 'params.id', message: 'must be a change id: a whole number such as 12' }] },
      });
    }
  });
});
