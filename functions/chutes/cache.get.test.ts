import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { chuteDevice } from '../../test/support/chute-devices.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import * as cache from './cache.get.ts';

describe('GET /api/v1/chutes/:chute/cache', () => {
  it('responds with 200 and the chute cache as a JSON object', async () => {
    const { status, body } = await callFunction(cache, chuteDevice(), { chute: 'hello' });
    expect(status).toBe(200);
    expect(body).toEqual({
      networks: {
        wlan: { hostInterface: 'vwlan3f2a', hostapdControl: '/var/run/hostapd/vwlan3f2a', leaseFile: '/var/lib/chutebox/dnsmasq/hello-wlan.leases' },
      },
    });
  });

  it('never shows a secret: tokens, Wi-Fi keys and accounting secrets read [redacted] at any depth', async () => {
    const device = memoryDevice({
      chutes: {
        portal: {
          record: { name: 'portal' },
          cache: {
            containerId: 'cbafb046',
            apiToken: 'pd_live_0123456789',
            environment: ['PORTAL_API_KEY=k-123', 'TZ=UTC'],
            networks: { guest: { hostInterface: 'vwlan0', key: 'hunter2hunter2', options: { acct_server: '10.0.0.2', acct_secret: 'radius!' } } },
          },
        },
      },
    });
    const { status, body } = await callFunction(cache, device, { chute: 'portal' });
    expect(status).toBe(200);
    expect(body).toEqual({
      containerId: 'cbafb046',
      apiToken: '[redacted]',
      environment: ['PORTAL_API_KEY=[redacted]', 'TZ=UTC'],
      networks: { guest: { hostInterface: 'vwlan0', key: '[redacted]', options: { acct_server: '10.0.0.2', acct_secret: '[redacted]' } } },
    });
    expect(JSON.stringify(body)).not.toMatch(/pd_live|k-123|hunter2|radius!/);
  });

  it('responds with 200 and {} for a chute without a cache', async () => {
    expect(await callFunction(cache, chuteDevice(), { chute: 'bare' })).toEqual({ status: 200, body: {} });
  });

  it('responds with 404 for an unknown chute and 400 naming params.chute for a bad name', async () => {
    expect((await callFunction(cache, chuteDevice(), { chute: 'nope' })).status).toBe(404);
    const bad = await callFunction(cache, chuteDevice(), { chute: '../etc' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errors: [{ path: 'params.chute' }] });
  });
});
