import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIST_FUNCTIONS } from '../test/support/test-bundles.ts';
import { chuteboxFleetHandlers, chuteboxHandlers } from './msw.ts';

/** A controller's code under test, as it would call the router. */
async function guestSsid(router: string): Promise<string> {
  return ((await (await fetch(`${router}/api/v1/chutes/hotspot/networks/guest/ssid`)).json()) as { ssid: string }).ssid;
}

describe('chuteboxHandlers with setupServer (msw in Node)', () => {
  const handlers = chuteboxHandlers({ baseUrl: 'http://router.test', scenario: 'default', auth: false, changeDelayMs: 0, functionsDir: DIST_FUNCTIONS });
  const server = setupServer(...handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => handlers.reset());
  afterAll(() => server.close());

  it('answers a request to the router’s base URL with the scenario, as chutebox emulate would', async () => {
    const answer = await fetch('http://router.test/api/v1/chutes');
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { name: string }[]).map((chute) => chute.name).sort()).toEqual(['hello-world', 'hotspot']);
    const missing = await fetch('http://router.test/api/v1/chutes/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
  });

  it('keeps what a request changed until reset()', async () => {
    const recorded = await guestSsid('http://router.test');
    const put = await fetch('http://router.test/api/v1/chutes/hotspot/networks/guest/ssid', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ssid: 'changed by a test' }),
    });
    expect(put.status).toBe(200);
    expect(await guestSsid('http://router.test')).toBe('changed by a test');
    await handlers.reset();
    expect(await guestSsid('http://router.test')).toBe(recorded);
  });

  it('answers a GET with an ETag, a 304 without a body to a request that names it, and a new ETag once a PUT changed the answer', async () => {
    const url = 'http://router.test/api/v1/chutes/hotspot/networks/guest/ssid';
    const first = await fetch(url);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
    await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ssid: 'changed by a test' }) });
    const changed = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(((await changed.json()) as { ssid: string }).ssid).toBe('changed by a test');
  });

  it('carries the router’s clock: clock() and setClock(), and serves /_chutebox/clock', async () => {
    const start = (await handlers.clock()).now;
    expect(await handlers.setClock({ speed: 0, now: start, elapsedMs: 0 })).toEqual({ now: start, elapsedMs: 0, speed: 0 });
    const patched = await fetch('http://router.test/_chutebox/clock', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceMs: 60_000 }),
    });
    expect(await patched.json()).toEqual({ now: start + 60_000, elapsedMs: 60_000, speed: 0 });
    expect(await handlers.clock()).toEqual({ now: start + 60_000, elapsedMs: 60_000, speed: 0 });
  });

  it('refuses a base URL with a path', () => {
    expect(() => chuteboxHandlers({ baseUrl: 'http://router.test/api' })).toThrow(/must be an origin/);
  });
});

describe('chuteboxHandlers with fault rules', () => {
  const STATIONS = 'http://router.test/api/v1/chutes/hotspot/networks/guest/stations';
  const handlers = chuteboxHandlers({
    baseUrl: 'http://router.test',
    scenario: 'default',
    auth: false,
    functionsDir: DIST_FUNCTIONS,
    faults: [{ id: 'busy', match: { path: '/api/v1/chutes/*/networks/*/stations' }, count: 1, effect: { status: 503 } }],
  });
  const server = setupServer(...handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => handlers.reset());
  afterAll(() => server.close());

  it('answers a status rule given as an option with its problem, and the rule again after reset()', async () => {
    const statuses = async () => [(await fetch(STATIONS)).status, (await fetch(STATIONS)).status];
    expect(await statuses()).toEqual([503, 200]);
    await handlers.reset();
    expect(await statuses()).toEqual([503, 200]);
    expect(await handlers.faults.list()).toMatchObject([{ id: 'busy', count: 1 }]);
  });

  it('delays an answer by a latency rule added in the test, with msw’s delay', async () => {
    await handlers.faults.clear();
    await handlers.faults.add({ match: { path: '/api/v1/chutes/*/networks/*/stations' }, effect: { latency: { distribution: 'fixed', ms: 250 } } });
    const started = performance.now();
    expect((await fetch(STATIONS)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(245);
  });

  it('fails the fetch of a reset connection with a network error, as msw’s HttpResponse.error() does', async () => {
    await handlers.faults.add({ match: { method: 'DELETE' }, effect: { fault: 'connection-reset' } });
    await expect(fetch(`${STATIONS}/c8:5e:a9:3d:71:0b`, { method: 'DELETE' })).rejects.toThrow(TypeError);
    expect((await fetch(STATIONS)).status).toBe(503);
  });
});

describe('chuteboxFleetHandlers with setupServer', () => {
  const handlers = chuteboxFleetHandlers({ baseUrl: 'http://fleet.test', size: 50, seed: 3, auth: false, changeDelayMs: 0, functionsDir: DIST_FUNCTIONS });
  const server = setupServer(...handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => handlers.reset());
  afterAll(() => server.close());

  it('answers each device of the fleet at its own URL, and a reset takes back what a request changed', async () => {
    const list = (await (await fetch('http://fleet.test/_chutebox/fleet')).json()) as { size: number };
    expect(list.size).toBe(50);
    const recorded = await guestSsid(handlers.deviceUrl(49));
    await fetch(`${handlers.deviceUrl(49)}/api/v1/chutes/hotspot/networks/guest/ssid`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ssid: 'device 49 only' }),
    });
    expect(await guestSsid(handlers.deviceUrl(49))).toBe('device 49 only');
    expect(await guestSsid(handlers.deviceUrl(48))).not.toBe('device 49 only');
    await handlers.reset();
    expect(await guestSsid(handlers.deviceUrl(49))).toBe(recorded);
  });

  it("fails a device's requests as msw fails them, where a fleet rule names it", async () => {
    await fetch('http://fleet.test/_chutebox/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ effect: { fault: 'connection-reset' }, devices: { ids: ['router-7'] } }),
    });
    await expect(fetch(`${handlers.deviceUrl(7)}/api/v1/chutes`)).rejects.toThrow();
    expect((await fetch(`${handlers.deviceUrl(8)}/api/v1/chutes`)).status).toBe(200);
  });

  it("puts the fleet back as a snapshot took it: a device's write, and the others as their seeds", async () => {
    const put = (index: number, ssid: string) =>
      fetch(`${handlers.deviceUrl(index)}/api/v1/chutes/hotspot/networks/guest/ssid`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ssid }),
      });
    const recorded = await guestSsid(handlers.deviceUrl(12));
    await put(11, 'in the snapshot');
    const taken = await handlers.snapshot();
    expect(Object.keys(taken.devices)).toEqual(['router-11']);
    await handlers.reset();
    await put(12, 'after the snapshot');
    await handlers.restore(taken);
    expect(await guestSsid(handlers.deviceUrl(11))).toBe('in the snapshot');
    expect(await guestSsid(handlers.deviceUrl(12))).toBe(recorded);
  });
});
