import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { CHANGES } from '../../test/support/change-log.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import * as change from './change.get.ts';

describe('GET /api/v1/changes/:id', () => {
  it('responds with 200 and the change with that id', async () => {
    const device = memoryDevice({ changes: CHANGES });
    expect(await callFunction(change, device, { id: '1' })).toEqual({ status: 200, body: CHANGES[0] });
    expect(await callFunction(change, device, { id: '2' })).toEqual({ status: 200, body: CHANGES[1] });
  });

  it('responds with 200 and a change of the device itself, with a null chute', async () => {
    expect(await callFunction(change, memoryDevice({ changes: CHANGES }), { id: '4' })).toEqual({ status: 200, body: CHANGES[3] });
  });

  it('responds with 404 for an id no change has', async () => {
    const device = memoryDevice({ changes: CHANGES });
    for (const id of ['5', '0', '999999999999999']) {
      const { status, body } = await callFunction<{ detail: string }>(change, device, { id });
      expect(status).toBe(404);
      expect(body.detail).toContain(id);
    }
  });

  it('responds with 400 naming params.id for an id that is not a whole number', async () => {
    for (const id of ['abc', '-1', '1.5', '1e3', '', '9999999999999999']) {
      expect(await callFunction(change, memoryDevice({ changes: CHANGES }), { id }), id).toMatchObject({
        status: 400,
        body: { errors: [{ path: 'params.id', message: 'must be a change id: a whole number such as 12' }] },
      });
    }
  });
});
