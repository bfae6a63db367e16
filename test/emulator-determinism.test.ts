import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../emulator/start.ts';
import { call } from './support/http-client.ts';
import { DIST_FUNCTIONS } from './support/test-bundles.ts';

/**
 * The contract of issue 32: every answer is a function of the scenario, the seed, the writes made
 * through the API and the clock. Two emulators with the same seed, their clocks PATCHed to the same
 * `now` and `elapsedMs` at speed 0, answer every GET of the OpenAPI document with the same bytes and
 * the same ETag, before and after the same writes; the streams (the events, a websocket) are left out.
 */

const CLOCK = { now: Date.UTC(2026, 2, 1, 9, 30), elapsedMs: 600_000, speed: 0 };
const INSTALL = {
  name: 'newcomer',
  image: 'chutebox/newcomer:1',
  version: '1',
  config: { net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'new-lab' } } },
};

/** What a GET answered, as bytes and the headers that describe them. */
interface Seen {
  status: number;
  type: string | null;
  etag: string | null;
  text: string;
}

/** The OpenAPI document's GET paths and the media types each answers (a websocket's none; the events stream left out). */
async function getPaths(router: RunningEmulator): Promise<{ path: string; types: string[] }[]> {
  const document = (
    await call<{ paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, unknown> }> } }> }>(
      router.url,
      'GET',
      '/api/v1/openapi.json',
    )
  ).body;
  return Object.entries(document.paths).flatMap(([path, operations]) => {
    const types = Object.keys(operations.get?.responses['200']?.content ?? {});
    return types.length === 0 || types.includes('text/event-stream') ? [] : [{ path, types }];
  });
}

/** The path with each `{name}` filled in every way the router's own answers name: its chutes, their networks and stations, its changes. */
async function filledIn(router: RunningEmulator, path: string): Promise<string[]> {
  /** What a list answers; none where it answers a problem (the stations of a VLAN). */
  const list = async <T>(endpoint: string) => {
    const answer = await call<T[]>(router.url, 'GET', endpoint);
    return answer.status === 200 ? answer.body : [];
  };
  let paths = [path];
  const fill = async (name: string, values: (path: string) => Promise<string[]>) => {
    const next: string[] = [];
    for (const each of paths)
      if (each.includes(`{${name}}`)) for (const value of await values(each)) next.push(each.replace(`{${name}}`, value));
      else next.push(each);
    paths = next;
  };
  await fill('chute', async () => (await list<{ name: string }>('/api/v1/chutes')).map((chute) => chute.name));
  await fill('network', async (at) => (await list<{ name: string }>(`${at.slice(0, at.indexOf('/networks/'))}/networks`)).map((network) => network.name));
  await fill('mac', async (at) =>
    (await list<{ mac_addr: string }>(at.slice(0, at.indexOf('/stations/') + '/stations'.length))).map((station) => station.mac_addr),
  );
  await fill('id', async () => (await list<{ id: number }>('/api/v1/changes')).map((change) => String(change.id)));
  await fill('user', async () => ['paradrop']);
  return paths;
}

/**
 * The metrics without the daemon's own request counters: they count the requests this test made,
 * and how often it polled a change until it ended depends on the machine's timing, not on the device.
 */
function withoutServedRequests(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^(# (HELP|TYPE) )?chutebox_http_/.test(line))
    .join('\n');
}

/** Every GET answer of the router, by path and media type asked for. */
async function everyAnswer(router: RunningEmulator): Promise<Record<string, Seen>> {
  const seen: Record<string, Seen> = {};
  for (const { path, types } of await getPaths(router)) {
    for (const url of await filledIn(router, path)) {
      for (const type of types) {
        const answer = await fetch(`${router.url}${url}`, { headers: { accept: type } });
        const text = await answer.text();
        const served = url === '/metrics' ? withoutServedRequests(text) : undefined;
        seen[`${url} ${type}`] = {
          status: answer.status,
          type: answer.headers.get('content-type'),
          etag: served === undefined ? answer.headers.get('etag') : null,
          text: served ?? text,
        };
      }
    }
  }
  return seen;
}

/** PATCHes a router's clock, as a controller's suite would. */
async function setClock(router: RunningEmulator, clock: object): Promise<void> {
  expect(await call(router.url, 'PATCH', '/_chutebox/clock', { json: clock })).toMatchObject({ status: 200, body: CLOCK });
}

/** Sets an SSID and installs a chute, and waits for the install to be over. */
async function write(router: RunningEmulator): Promise<void> {
  expect((await call(router.url, 'PUT', '/api/v1/chutes/hotspot/networks/guest/ssid', { json: { ssid: 'same-writes' } })).status).toBe(200);
  const installed = await call<{ change_id: number }>(router.url, 'POST', '/api/v1/chutes', { json: INSTALL });
  expect(installed.status).toBe(200);
  for (;;) {
    const change = await call<{ state: string }>(router.url, 'GET', `/api/v1/changes/${installed.body.change_id}`);
    if (change.body.state === 'succeeded') return;
    expect(change.body.state).not.toBe('failed');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('two emulators with the same seed and clock', () => {
  const routers: RunningEmulator[] = [];
  beforeAll(async () => {
    for (const seed of [7, 7, 8]) routers.push(await startEmulator({ auth: false, functionsDir: DIST_FUNCTIONS, changeDelayMs: 0, seed }));
    // Started a moment apart, at the real time: the PATCH puts them at the same reading.
    for (const router of routers) await setClock(router, CLOCK);
  });
  afterAll(() => Promise.all(routers.map((router) => router.stop())));

  it('answer every GET of the OpenAPI document with the same bytes and ETag', async () => {
    const [one, two] = routers;
    const first = await everyAnswer(one!);
    expect(Object.keys(first).length).toBeGreaterThan(40);
    expect(Object.values(first).filter((seen) => seen.status === 200).length).toBeGreaterThan(40);
    expect(await everyAnswer(two!)).toEqual(first);
  });

  it('answer the same after the same writes: an SSID set, a chute installed', async () => {
    const [one, two, other] = routers;
    for (const router of routers) await write(router);
    for (const router of routers) await setClock(router, CLOCK);
    const first = await everyAnswer(one!);
    expect(first['/api/v1/chutes/newcomer application/json']).toMatchObject({ status: 200 });
    expect(await everyAnswer(two!)).toEqual(first);
    // The new chute's container is drawn from the seed: another seed, another id (the install's messages name it).
    const created = async (router: RunningEmulator) => /created container ([0-9a-f]{12})/.exec((await call(router.url, 'GET', '/api/v1/changes')).text)?.[1];
    expect(await created(one!)).toMatch(/^[0-9a-f]{12}$/);
    expect(await created(other!)).not.toBe(await created(one!));
  });
});
