import { afterAll, describe, expect, it } from 'vitest';
import { DIST_FUNCTIONS } from '../../test/support/test-bundles.ts';
import { limitedFetch } from './outbound.ts';
import { startFleet, type RunningFleet } from './start-fleet.ts';

interface ControllerStatus {
  controller: string;
  devices: { provisioned: number; failed: number; waiting: number };
  received: { checks: number; reports: number; routers: number };
}

describe("a fleet's devices and their controller", () => {
  let fleet: RunningFleet;
  afterAll(() => fleet?.stop());

  it('provision themselves with the built-in controller, then each sends it telemetry', async () => {
    fleet = await startFleet({ size: 20, seed: 4, auth: false, functionsDir: DIST_FUNCTIONS, provisionSpreadMs: 300, still: true });
    const status = async () => (await (await fetch(`${fleet.url}/_chutebox/controller`)).json()) as ControllerStatus;
    for (let tries = 0; (await status()).devices.provisioned < 20 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    const provisioned = await status();
    expect(provisioned.devices).toEqual({ provisioned: 20, failed: 0, waiting: 0 });
    expect(provisioned.received.checks).toBe(20);
    const device = await (await fetch(`${fleet.deviceUrl(7)}/api/v1/config/provision`)).json();
    expect(device).toMatchObject({ provisioned: true, routerId: 'router-7' });
    // A telemetry interval later on every device's clock, every device has reported.
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        fetch(`${fleet.deviceUrl(index)}/_chutebox/clock`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"advanceMs":61000}' }),
      ),
    );
    for (let tries = 0; (await status()).received.routers < 20 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await status()).received).toMatchObject({ routers: 20 });
  });
});

describe('limitedFetch', () => {
  it('never has more than its limit in flight, and answers every request', async () => {
    let running = 0;
    let most = 0;
    const slow: typeof fetch = async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      return new Response('ok');
    };
    const limited = limitedFetch(slow, 3);
    const answers = await Promise.all(Array.from({ length: 20 }, () => limited('http://x.invalid/').then((res) => res.text())));
    expect(answers).toEqual(Array(20).fill('ok'));
    expect(most).toBe(3);
  });
});
