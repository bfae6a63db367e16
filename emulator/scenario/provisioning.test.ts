import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import type { ProvisionCredentials } from '../../functions/core/device/index.ts';
import { useMockController } from '../../test/support/controller.ts';
import { scenarioProvisioning } from './provisioning.ts';

const CREDENTIALS: ProvisionCredentials = { routerId: 'lab-1', apitoken: 't0k3n', pdserver: 'https://paradrop.org', wampRouter: 'ws://paradrop.org:9086/ws' };

const server = useMockController();

describe('provisioning in the emulator', () => {
  it('talks to the built-in controller by default, which then receives telemetry at the interval', async () => {
    vi.useFakeTimers();
    const provisioning = scenarioProvisioning({ report: async () => ({ cpu: 1 }), telemetry: { enabled: true, interval: 30 } });
    expect(await provisioning.provision(CREDENTIALS)).toMatchObject({ provisioned: true, routerId: 'lab-1', httpConnected: true });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(provisioning.fake!.log()).toEqual({ checks: 1, reports: 2, lastReport: { cpu: 1 }, lastRouterId: 'lab-1', routers: 1 });
    provisioning.stop();
  });

  it('sends every request to the --controller URL instead of pdserver, through the real fetch', async () => {
    const asked: string[] = [];
    server.use(
      http.get('http://127.0.0.1:8000/api/routers/:id', ({ request, params }) => {
        asked.push(request.url);
        return HttpResponse.json({ _id: params.id });
      }),
    );
    const provisioning = scenarioProvisioning({ report: async () => ({}), controller: 'http://127.0.0.1:8000' });
    expect(provisioning.fake).toBeNull();
    expect(await provisioning.provision(CREDENTIALS)).toMatchObject({ provisioned: true, pdserver: 'https://paradrop.org' });
    expect(asked).toEqual(['http://127.0.0.1:8000/api/routers/lab-1']);
    provisioning.stop();
  });

  it('keeps what was provisioned in memory only: a new one starts unprovisioned, or with the given initial state', async () => {
    const first = scenarioProvisioning({ report: async () => ({}) });
    await first.provision(CREDENTIALS);
    first.stop();
    expect(await scenarioProvisioning({ report: async () => ({}) }).status()).toMatchObject({ provisioned: false });
    const initial = { ...CREDENTIALS, provisionedAt: '2026-11-20T08:30:00.000Z' };
    expect(await scenarioProvisioning({ report: async () => ({}), initial, telemetry: { enabled: false, interval: 60 } }).status()).toMatchObject({
      provisioned: true,
      provisionedAt: initial.provisionedAt,
    });
  });
});
