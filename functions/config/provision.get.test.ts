import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { CREDENTIALS, provisioningDevice } from '../../test/support/provisioning-devices.ts';
import type { ProvisionStatus } from '../core/device/index.ts';
import { NOT_PROVISIONED } from '../../test/support/controller.ts';
import * as provisionStatus from './provision.get.ts';

describe('GET /api/v1/config/provision', () => {
  it('responds with 200 and a status of nulls and false before provisioning', async () => {
    expect(await callFunction(provisionStatus, provisioningDevice().device, {})).toEqual({
      status: 200,
      body: NOT_PROVISIONED,
    });
  });

  it('responds with the stored credentials but the apitoken, and telemetry as configured', async () => {
    const initial = { ...CREDENTIALS, provisionedAt: '2026-11-20T08:30:00.000Z' };
    const { device } = provisioningDevice({ initial, telemetry: { enabled: false, interval: 300 } });
    const { status, body } = await callFunction<ProvisionStatus>(provisionStatus, device, {});
    expect(status).toBe(200);
    expect(body).toEqual({
      provisioned: true,
      routerId: CREDENTIALS.routerId,
      pdserver: CREDENTIALS.pdserver,
      wampRouter: CREDENTIALS.wampRouter,
      httpConnected: false,
      wampConnected: false,
      provisionedAt: '2026-11-20T08:30:00.000Z',
      telemetry: { enabled: false, interval: 300, lastSuccess: null, lastError: null, queued: 0, dropped: 0, delivered: 0, failed: 0 },
    });
    expect(JSON.stringify(body)).not.toContain(CREDENTIALS.apitoken);
  });
});
