import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { CREDENTIALS, provisioningDevice } from '../../test/support/provisioning-devices.ts';
import * as pdid from './pdid.get.ts';

describe('GET /api/v1/config/pdid', () => {
  it('responds with 200 and an empty pdid before provisioning, as ParaDrop', async () => {
    expect(await callFunction(pdid, provisioningDevice().device, {})).toEqual({ status: 200, body: { pdid: '' } });
  });

  it('responds with 200 and the routerId the device was provisioned with', async () => {
    const { device } = provisioningDevice({ initial: { ...CREDENTIALS, provisionedAt: '2026-11-20T08:30:00.000Z' } });
    expect(await callFunction(pdid, device, {})).toEqual({ status: 200, body: { pdid: CREDENTIALS.routerId } });
  });

  it('responds with an empty pdid again after the provisioning is cleared (factory reset)', async () => {
    const { device, provisioning } = provisioningDevice({ initial: { ...CREDENTIALS, provisionedAt: '2026-11-20T08:30:00.000Z' } });
    await provisioning.clear();
    expect(await callFunction(pdid, device, {})).toEqual({ status: 200, body: { pdid: '' } });
  });
});
