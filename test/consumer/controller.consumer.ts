// A controller project's own tests (its controller.test.ts), as the package's README shows them: test/package.test.ts packs
// chutebox, installs the tarball in a fresh project beside this file and runs this suite there.
import { startEmulator, startFleet, type RunningEmulator, type RunningFleet } from 'chutebox/emulator';
import { chuteboxHandlers } from 'chutebox/msw';
import type { Endpoints } from 'chutebox/types';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/** The controller's code under test: it logs in and asks the router things. */
class RouterClient {
  private token = '';
  constructor(private readonly base: string) {}
  async login(): Promise<void> {
    const answer = await fetch(`${this.base}/api/v1/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'paradrop', password: '' }),
    });
    this.token = ((await answer.json()) as { token: string }).token;
  }
  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const answer = await fetch(`${this.base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: answer.status, body: (await answer.json()) as T };
  }
}

describe('startEmulator in a controller’s vitest suite', () => {
  let router: RunningEmulator;
  let client: RouterClient;
  beforeAll(async () => {
    router = await startEmulator({ scenario: 'default', port: 0, changeDelayMs: 0 });
    client = new RouterClient(router.url);
    await client.login();
  });
  afterEach(() => router.reset());
  afterAll(() => router.stop());

  it('lists the chutes', async () => {
    const chutes = await client.call<{ name: string }[]>('GET', '/chutes');
    expect(chutes.status).toBe(200);
    expect(chutes.body.map((chute: { name: string }) => chute.name).sort()).toEqual(['hello-world', 'hotspot']);
  });

  it('changes an SSID, and stops a chute by following its change until it succeeds', async () => {
    expect((await client.call('PUT', '/chutes/hotspot/networks/guest/ssid', { ssid: 'controller test' })).status).toBe(200);
    expect((await client.call<{ ssid: string }>('GET', '/chutes/hotspot/networks/guest/ssid')).body.ssid).toBe('controller test');
    const stop = await client.call<{ change_id: number }>('POST', '/chutes/hotspot/stop');
    let change = await client.call<{ state: string }>('GET', `/changes/${stop.body.change_id}`);
    for (let i = 0; i < 100 && change.body.state !== 'succeeded' && change.body.state !== 'failed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      change = await client.call('GET', `/changes/${stop.body.change_id}`);
    }
    expect(change.body.state).toBe('succeeded');
    expect((await client.call<{ state: string }>('GET', '/chutes/hotspot')).body.state).toBe('stopped');
  });

  it('stands the router’s clock still and moves it ten minutes on: the uptime follows', async () => {
    await router.setClock({ speed: 0 });
    const uptime = async () => (await client.call<{ uptime: number }>('GET', '/info/software')).body.uptime;
    const before = await uptime();
    expect(await router.setClock({ advanceMs: 600_000 })).toMatchObject({ speed: 0 });
    expect(await uptime()).toBe(before + 600);
    expect((await router.clock()).speed).toBe(0);
  });

  it('retries while the router answers 503, as a fault rule makes it', async () => {
    await router.faults.add({ match: { operation: 'networks-stations-get' }, count: 2, effect: { status: 503 } });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) statuses.push((await client.call('GET', '/chutes/hotspot/networks/guest/stations')).status);
    expect(statuses).toEqual([503, 503, 200]);
  });

  it('starts every test from the scenario again (reset after each)', async () => {
    expect(await router.faults.list()).toEqual([]);
    expect((await client.call<{ ssid: string }>('GET', '/chutes/hotspot/networks/guest/ssid')).body.ssid).not.toBe('controller test');
    expect((await client.call<{ state: string }>('GET', '/chutes/hotspot')).body.state).toBe('running');
    expect((await router.clock()).speed).toBe(1);
  });
});

describe('startFleet in a controller’s vitest suite', () => {
  let fleet: RunningFleet;
  beforeAll(async () => {
    fleet = await startFleet({ size: 100, seed: 7, auth: false, provision: false, changeDelayMs: 0 });
  });
  afterEach(() => fleet.reset());
  afterAll(() => fleet.stop());

  it('serves a hundred routers, each at its own URL, one in ten of them failing on purpose', async () => {
    await fetch(`${fleet.url}/_chutebox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ effect: { status: 503 }, devices: { share: 0.1 } }),
    });
    const statuses = await Promise.all(Array.from({ length: 100 }, async (_, index) => (await fetch(`${fleet.deviceUrl(index)}/api/v1/chutes`)).status));
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(3);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(80);
  });
});

describe('chuteboxHandlers with msw’s setupServer', () => {
  const handlers = chuteboxHandlers({ baseUrl: 'http://router.test', scenario: 'default', changeDelayMs: 0 });
  const server = setupServer(...handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => handlers.reset());
  afterAll(() => server.close());

  it('answers the controller’s requests without a port', async () => {
    const client = new RouterClient('http://router.test');
    await client.login();
    expect((await client.call<{ name: string }[]>('GET', '/chutes/hotspot/networks')).body.map((network: { name: string }) => network.name)).toContain('guest');
  });
});

// The declarations are the package's: a wrong option is a type error, and each endpoint's types come
// from its schemas.
// @ts-expect-error port is a number
void (() => startEmulator({ port: 'eighty' }));
const install: Endpoints['POST /api/v1/chutes']['body'] = { name: 'hello', image: 'busybox:latest' };
const ssid: Endpoints['PUT /api/v1/chutes/:chute/networks/:network/ssid']['body'] = { ssid: 'guest' };
const login: Endpoints['POST /api/v1/auth/local']['body'] = { username: 'paradrop', password: '' };
// @ts-expect-error a token is a string
const token: Endpoints['POST /api/v1/auth/local']['response']['token'] = 1;
// @ts-expect-error a chute list is an array of chutes, not a map
const wrong: Endpoints['GET /api/v1/chutes']['response'] = { hello: {} };
void [install, ssid, login, token, wrong];
