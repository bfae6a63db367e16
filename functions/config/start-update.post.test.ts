import { describe, expect, it } from 'vitest';
import { callFunction, type InputProblem } from '../../test/support/call-function.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import type { ChangeAccepted } from '../chutes/schemas.ts';
import * as startUpdate from './start-update.post.ts';

describe('POST /api/v1/config/startUpdate', () => {
  it("queues chutebox's own update as a change of the device, with no body or an empty one", async () => {
    const device = memoryDevice();
    const first = await callFunction<ChangeAccepted>(startUpdate, device, {});
    const second = await callFunction<ChangeAccepted>(startUpdate, device, {}, {});
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.change_id).toBe(first.body.change_id + 1);
    expect(device.submitted).toEqual([{ action: 'update-runtime' }, { action: 'update-runtime' }]);
    expect((await device.change(first.body.change_id))?.chute).toBeNull();
  });

  it('refuses a body with a field, naming it, and queues nothing', async () => {
    const device = memoryDevice();
    const refused = await callFunction<InputProblem>(startUpdate, device, {}, { now: true });
    expect([refused.status, refused.body.errors]).toEqual([422, [{ path: 'body', message: 'startUpdate takes no body (or an empty object)' }]]);
    expect(device.submitted).toEqual([]);
  });
});
