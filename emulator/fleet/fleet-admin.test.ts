import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIST_FUNCTIONS } from '../../test/support/test-bundles.ts';
import { startFleet, type RunningFleet } from './start-fleet.ts';

const patch = (body: unknown) => ({ method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const clockOf = async (url: string) => (await (await fetch(`${url}/_chutebox/clock`)).json()) as { now: number; elapsedMs: number; speed: number };

describe("a fleet's clock and reset", () => {
  let fleet: RunningFleet;
  beforeAll(async () => {
    fleet = await startFleet({ size: 10, seed: 2, auth: false, functionsDir: DIST_FUNCTIONS, provision: false, still: true, changeDelayMs: 0 });
  });
  afterAll(() => fleet.stop());

  it('sets the time of every device, those built before and after', async () => {
    await fetch(`${fleet.deviceUrl(1)}/api/v1/chutes`);
    const set = await fetch(`${fleet.url}/_chutebox/clock`, patch({ speed: 0, now: Date.UTC(2030, 0, 1) }));
    expect(set.status).toBe(200);
    expect(await clockOf(fleet.url)).toMatchObject({ speed: 0, now: Date.UTC(2030, 0, 1) });
    expect(await clockOf(fleet.deviceUrl(1))).toMatchObject({ speed: 0, now: Date.UTC(2030, 0, 1) });
    expect(await clockOf(fleet.deviceUrl(8))).toMatchObject({ speed: 0, now: Date.UTC(2030, 0, 1) });
    await fetch(`${fleet.url}/_chutebox/clock`, patch({ advanceMs: 60_000 }));
    expect((await clockOf(fleet.deviceUrl(1))).now).toBe(Date.UTC(2030, 0, 1) + 60_000);
    const refused = await fetch(`${fleet.url}/_chutebox/clock`, patch({ speed: -1 }));
    expect(refused.status).toBe(422);
    expect((await clockOf(fleet.deviceUrl(1))).speed).toBe(0);
  });

  it('puts every device back as its scenario loads it on a reset', async () => {
    const ssid = '/api/v1/chutes/hotspot/networks/guest/ssid';
    const before = await (await fetch(`${fleet.deviceUrl(4)}${ssid}`)).json();
    await fetch(`${fleet.deviceUrl(4)}${ssid}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"ssid":"reset-me"}' });
    await fetch(`${fleet.url}/_chutebox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"effect":{"status":503}}' });
    expect((await fetch(`${fleet.deviceUrl(4)}${ssid}`)).status).toBe(503);
    expect((await fetch(`${fleet.url}/_chutebox/state/reset`, { method: 'POST' })).status).toBe(204);
    expect(await (await fetch(`${fleet.deviceUrl(4)}${ssid}`)).json()).toEqual(before);
    expect((await clockOf(fleet.url)).speed).toBe(1);
  });

  it("keeps the fleet's rules on a device through the device's own reset, and drops those the fleet removed", async () => {
    const features = `${fleet.deviceUrl(6)}/api/v1/info/features`;
    const post = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await fetch(features)).status).toBe(200);
    const added = await fetch(`${fleet.url}/_chutebox/faults`, post({ effect: { status: 503 }, devices: { ids: ['router-6'] } }));
    const { id } = (await added.json()) as { id: string };
    expect((await fetch(`${fleet.deviceUrl(6)}/_chutebox/state/reset`, { method: 'POST' })).status).toBe(204);
    expect((await fetch(features)).status).toBe(503);
    expect((await fetch(`${fleet.url}/_chutebox/faults/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(features)).status).toBe(200);
    expect((await fetch(`${fleet.deviceUrl(6)}/_chutebox/state/reset`, { method: 'POST' })).status).toBe(204);
    expect((await fetch(features)).status).toBe(200);
  });
});
