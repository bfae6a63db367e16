import { describe, expect, it } from 'vitest';
import { GUEST_SSID as SSID, NEWCOMER as INSTALL } from './support/fleet-answers.ts';
import { call, changeOver } from './support/http-client.ts';
import { useChutebox } from './support/spawn.ts';

/*
 * The whole fleet's state through `chutebox emulate --fleet`: taken with GET /_chutebox/state, put back
 * with PUT after a reset, on a fleet that keeps two devices built so that the written ones are held.
 */

const start = useChutebox();

describe('chutebox emulate --fleet: the state of the whole fleet', () => {
  it('answers as before after a reset and a PUT of the state taken, a device written since as its seed, and refuses another seed', async () => {
    const fleet = await start(['emulate', '--port', '0', '--no-auth', '--no-provision', '--fleet', '6', '--seed', '9', '--fleet-built', '2']);
    const device = (index: number) => ({ url: `${fleet.url}/devices/router-${index}` });
    const text = async (url: string, path: string) => (await call(url, 'GET', path)).text;
    const seedsSsid = await text(device(4).url, SSID);

    expect(await changeOver(device(0), 'POST', '/chutes', INSTALL)).toMatchObject({ state: 'succeeded' });
    expect((await call(device(2).url, 'PUT', SSID, { json: { ssid: 'fleet-state' } })).status).toBe(200);
    const rule = { match: { path: '/api/v1/info/features' }, count: 2, effect: { status: 503 }, devices: { ids: ['router-2'] } };
    expect((await call(fleet.url, 'POST', '/_chutebox/faults', { json: rule })).status).toBe(201);
    expect((await call(device(2).url, 'GET', '/api/v1/info/features')).status).toBe(503);
    expect((await call(fleet.url, 'PATCH', '/_chutebox/clock', { json: { now: Date.UTC(2027, 0, 1), speed: 0 } })).status).toBe(200);
    expect((await call(fleet.url, 'PATCH', '/_chutebox/clock', { json: { advanceMs: 30_000 } })).status).toBe(200);
    // Devices 0 and 2 leave the two kept built: held as what differs from their seeds'.
    for (const index of [3, 4, 5]) expect((await call(device(index).url, 'GET', '/api/v1/info/features')).status).toBe(200);

    const taken = await call<{ devices: Record<string, unknown> }>(fleet.url, 'GET', '/_chutebox/state');
    expect(taken.status).toBe(200);
    expect(Object.keys(taken.body.devices)).toEqual(['router-0', 'router-2']);
    const seen = async () => [
      await text(device(0).url, '/api/v1/chutes'),
      await text(device(0).url, '/_chutebox/clock'),
      await text(device(2).url, SSID),
      (await call(device(2).url, 'GET', '/api/v1/info/features')).status,
      (await call(device(2).url, 'GET', '/api/v1/info/features')).status,
      await text(device(4).url, SSID),
      await text(fleet.url, '/_chutebox/faults'),
      await text(fleet.url, '/_chutebox/clock'),
    ];
    const before = await seen();
    expect(before.slice(0, 6)).toEqual([
      expect.stringContaining('"newcomer"'),
      expect.any(String),
      expect.stringContaining('fleet-state'),
      503,
      200,
      seedsSsid,
    ]);

    expect((await call(fleet.url, 'POST', '/_chutebox/state/reset')).status).toBe(204);
    expect((await call(device(4).url, 'PUT', SSID, { json: { ssid: 'written-since' } })).status).toBe(200);
    const put = await call(fleet.url, 'PUT', '/_chutebox/state', { document: { type: 'application/json', text: taken.text } });
    expect(put.status, put.text).toBe(204);
    expect(await seen()).toEqual(before);

    const restored = await text(fleet.url, '/_chutebox/state');
    expect((await call(device(4).url, 'PUT', SSID, { json: { ssid: 'written-since' } })).status).toBe(200);
    const now = await text(fleet.url, '/_chutebox/state');
    const other = await call(fleet.url, 'PUT', '/_chutebox/state', { json: { ...(JSON.parse(restored) as object), seed: 10 } });
    expect(other).toMatchObject({ status: 422, type: 'application/problem+json', body: { errors: [{ path: 'body.seed' }] } });
    expect(await text(fleet.url, '/_chutebox/state')).toBe(now);
    expect(now).not.toBe(restored);
  });
});
