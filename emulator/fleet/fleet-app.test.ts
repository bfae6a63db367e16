import { beforeAll, describe, expect, it } from 'vitest';
import { apiApp } from '../../runtime/http/api.ts';
import { mountFunctions } from '../../runtime/http/mount-functions.ts';
import { DIST_FUNCTIONS } from '../../test/support/test-bundles.ts';
import { createFleet } from './fleet.ts';
import { fleetApp } from './fleet-app.ts';
import { loadFleetScenarios } from './member-device.ts';
import type { FleetSpec } from './members.ts';

const SPEC: FleetSpec = { size: 5, seed: 3, scenarios: [{ scenario: 'default', share: 1 }] };

describe('a fleet over HTTP', () => {
  let fetch: (path: string, init?: RequestInit & { host?: string }) => Promise<Response>;
  let built: () => number;
  beforeAll(async () => {
    const functions = await mountFunctions(DIST_FUNCTIONS);
    const fleet = createFleet({ spec: SPEC, scenarios: await loadFleetScenarios(SPEC), functions, device: { changeDelayMs: 0 } });
    built = fleet.built;
    const app = fleetApp({ fleet, api: apiApp(functions, { auth: null }), auth: null, domain: 'fleet.test' });
    fetch = (path, init = {}) =>
      Promise.resolve(
        app.fetch(new Request(`http://127.0.0.1${path}`, { ...init, headers: { ...(init.host ? { host: init.host } : {}), ...(init.headers as object) } })),
      );
  });

  it('lists its devices, a page at a time', async () => {
    const all = await fetch('/_chutebox/fleet');
    expect(all.status).toBe(200);
    const body = (await all.json()) as { size: number; devices: { id: string; scenario: string }[] };
    expect(body).toEqual({ size: 5, devices: [0, 1, 2, 3, 4].map((index) => ({ id: `router-${index}`, scenario: 'default' })) });
    expect(await (await fetch('/_chutebox/fleet?offset=3&limit=5')).json()).toEqual({ size: 5, devices: body.devices.slice(3) });
    const bad = await fetch('/_chutebox/fleet?limit=ten');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe('query.limit');
    expect((await fetch('/_chutebox/fleet?limit=0')).status).toBe(422);
  });

  it("answers each device's API at its path, and builds a device only when first asked for", async () => {
    const before = built();
    const chutes = await fetch('/devices/router-2/api/v1/chutes');
    expect(chutes.status).toBe(200);
    expect(((await chutes.json()) as { name: string }[]).map((chute) => chute.name)).toContain('hotspot');
    expect(built()).toBe(before + 1);
    const missing = await fetch('/devices/router-5/api/v1/chutes');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    expect((await fetch('/devices/router-2/api/v1/no-such-thing')).status).toBe(404);
  });

  it('keeps a write to one device from every other', async () => {
    const ssid = '/api/v1/chutes/hotspot/networks/guest/ssid';
    const put = await fetch(`/devices/router-0${ssid}`, {
      method: 'PUT',
      body: JSON.stringify({ ssid: 'only-router-0' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(put.status).toBe(200);
    expect(await (await fetch(`/devices/router-0${ssid}`)).json()).toMatchObject({ ssid: 'only-router-0' });
    expect(await (await fetch(`/devices/router-1${ssid}`)).json()).not.toMatchObject({ ssid: 'only-router-0' });
  });

  it('sends /devices/<id> to /devices/<id>/, where its portal and relative links are, its query kept', async () => {
    const sent = await fetch('/devices/router-3?view=phone');
    expect(sent.status).toBe(308);
    expect(sent.headers.get('location')).toBe('/devices/router-3/?view=phone');
    expect((await fetch('/devices/router-3/api/v1/info/features')).status).toBe(200);
  });

  it('finds a device by its host name too', async () => {
    const byHost = await fetch('/api/v1/chutes/hotspot/networks/guest/ssid', { host: 'router-0.fleet.test:8080' });
    expect(await byHost.json()).toMatchObject({ ssid: 'only-router-0' });
  });

  it('gives each device its own clock and fault rules at /devices/<id>/_chutebox/', async () => {
    const patched = await fetch('/devices/router-3/_chutebox/clock', {
      method: 'PATCH',
      body: JSON.stringify({ speed: 0, now: 0 }),
      headers: { 'content-type': 'application/json' },
    });
    expect(patched.status).toBe(200);
    expect(((await (await fetch('/devices/router-3/_chutebox/clock')).json()) as { now: number }).now).toBe(0);
    expect(((await (await fetch('/devices/router-4/_chutebox/clock')).json()) as { now: number }).now).toBeGreaterThan(0);
    const rule = { match: { path: '/api/v1/chutes' }, effect: { status: 503 } };
    const added = await fetch('/devices/router-3/_chutebox/faults', {
      method: 'POST',
      body: JSON.stringify(rule),
      headers: { 'content-type': 'application/json' },
    });
    expect(added.status).toBe(201);
    expect((await fetch('/devices/router-3/api/v1/chutes')).status).toBe(503);
    expect((await fetch('/devices/router-4/api/v1/chutes')).status).toBe(200);
  });
});
