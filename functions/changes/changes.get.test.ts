import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { CHANGES } from '../../test/support/change-log.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import * as list from './changes.get.ts';

describe('GET /api/v1/changes/', () => {
  it('responds with 200 and every change record, oldest first', async () => {
    expect(await callFunction(list, memoryDevice({ changes: CHANGES }), {})).toEqual({ status: 200, body: CHANGES });
  });

  it('responds with 200 and [] on a device without changes, then lists a change once one is queued', async () => {
    const device = memoryDevice({ chutes: { hello: {} } });
    expect(await callFunction(list, device, {})).toEqual({ status: 200, body: [] });
    await device.submitChange({ action: 'stop', chute: 'hello' });
    expect(await callFunction(list, device, {})).toMatchObject({ status: 200, body: [{ id: 1, action: 'stop', chute: 'hello', state: 'queued' }] });
  });
});
