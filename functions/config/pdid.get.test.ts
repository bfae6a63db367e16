import { describe, expect, it } from 'vitest';
import { callChute } from '../../test/chute-devices.ts';
import { CREDENTIALS, provisioningDevice } from '../../test/provisioning-devices.ts';
import * as pdid from './pdid.get.ts';

describe('GET /api/v1/config/pdid', () => {
  it('responds with 200 and an empty pdid before provisioning, as ParaDrop', async () => {
    expect(await callChute(pdid, provisioningDevice().device, {})).toEqual({ status: 200, body: { pdid: '' } });
  });

  it('responds with 200 and the routerId the device was provisioned with', async () => {
    const { device } = provisioningDevice({ initial: { ...CREDENTIALS, provisionedAt: '2026-11-20T08:30:00.000Z' } });
    expect(await callChute(pdid, device, {})).toEqual({ status: 200, body: { pdid: CREDENTIALS.routerId } });
  });

  it('responds with an empty pdid again after the provisioning is cleared (factory reset)', async () => {
    const { device, provisioning } = provisioningDevice({ initial: { ...CREDENTIALS, provisionedAt: '2026-11-20T08:30:00.000Z' } });
    await provisioning.clear();
    expect(await callChute(pdid, device, {})).toEqual({ status: 200, body: { pdid: '' } });
  });
});
