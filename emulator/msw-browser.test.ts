import { fileURLToPath } from 'node:url';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chuteboxHandlers } from './msw-browser.ts';
import { compileScenario } from './scenario/compiled.ts';
import type { CompiledScenario } from './scenario/tree.ts';

const DEFAULT = fileURLToPath(new URL('../fixtures/scenarios/default/', import.meta.url));
const ROUTER = 'http://router.test';

/**
 * The browser's `chuteboxHandlers` (every endpoint module in-process, a compiled scenario, no file
 * system), run here under msw's setupServer from source: the same handlers setupWorker takes in a
 * page (test/msw-browser.test.ts runs the built bundle in headless Chromium).
 */
describe('the browser chuteboxHandlers, on a compiled scenario', async () => {
  const scenario: CompiledScenario = JSON.parse(JSON.stringify(await compileScenario(DEFAULT)));
  const handlers = chuteboxHandlers({ baseUrl: ROUTER, scenario, changeDelayMs: 0 });
  const server = setupServer(...handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => handlers.reset());
  afterAll(() => server.close());

  it('answers the station list of a network as chutebox emulate does', async () => {
    const answer = await fetch(`${ROUTER}/api/v1/chutes/hotspot/networks/guest/stations`);
    expect(answer.status).toBe(200);
    const stations = (await answer.json()) as { mac_addr: string }[];
    expect(stations.length).toBeGreaterThan(0);
    expect(stations.every((station) => /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(station.mac_addr))).toBe(true);
  });

  it('answers with the same HTTP semantics: problem+json 404, 405 with Allow, no credentials needed', async () => {
    const missing = await fetch(`${ROUTER}/api/v1/nowhere`);
    expect([missing.status, missing.headers.get('content-type')]).toEqual([404, 'application/problem+json']);
    const wrong = await fetch(`${ROUTER}/api/v1/chutes`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('GET');
    const hardware = await fetch(`${ROUTER}/api/v1/info/hardware`);
    expect(await hardware.json()).toMatchObject({ vendor: 'PC Engines', board: 'apu2 1.0', cpu: 'x86_64' });
  });

  it('keeps what a request changed until reset(), and serves the admin API', async () => {
    const ssid = async () => ((await (await fetch(`${ROUTER}/api/v1/chutes/hotspot/networks/guest/ssid`)).json()) as { ssid: string }).ssid;
    const recorded = await ssid();
    const put = await fetch(`${ROUTER}/api/v1/chutes/hotspot/networks/guest/ssid`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ssid: 'changed in the page' }),
    });
    expect(put.status).toBe(200);
    expect(await ssid()).toBe('changed in the page');
    expect((await fetch(`${ROUTER}/_chutebox/state/reset`, { method: 'POST' })).status).toBe(204);
    expect(await ssid()).toBe(recorded);
  });

  it('starts its clock and seed as told, and serves /_chutebox/clock', async () => {
    const start = Date.UTC(2026, 0, 1, 12);
    const frozen = chuteboxHandlers({ baseUrl: 'http://frozen.test', scenario, seed: 5, clock: { now: start, speed: 0 } });
    server.use(...frozen);
    try {
      expect(await frozen.setClock({ advanceMs: 1000 })).toEqual({ now: start + 1000, elapsedMs: 1000, speed: 0 });
      expect(await (await fetch('http://frozen.test/_chutebox/clock')).json()).toEqual({ now: start + 1000, elapsedMs: 1000, speed: 0 });
      expect((await frozen.snapshot()).seed).toBe(5);
    } finally {
      server.resetHandlers();
    }
  });

  it('applies fault rules, from the options and from /_chutebox/faults, and a reset goes back to the first', async () => {
    const faulted = chuteboxHandlers({ baseUrl: 'http://faulted.test', scenario, faults: [{ match: { path: '/api/v1/chutes' }, effect: { status: 503 } }] });
    server.use(...faulted);
    expect((await fetch('http://faulted.test/api/v1/chutes')).status).toBe(503);
    const added = await fetch('http://faulted.test/_chutebox/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ match: { path: '/api/v1/info/hardware' }, effect: { latency: { distribution: 'fixed', ms: 200 } } }),
    });
    expect(added.status).toBe(201);
    const started = performance.now();
    expect((await fetch('http://faulted.test/api/v1/info/hardware')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
    await faulted.reset();
    expect((await faulted.faults.list()).map((rule) => rule.effect)).toEqual([{ status: 503 }]);
  });

  it('refuses auth: true and a scenario that is not compiled', async () => {
    expect(() => chuteboxHandlers({ baseUrl: ROUTER, scenario, auth: true as unknown as false })).toThrow(/not served in a browser/);
    const bad = chuteboxHandlers({ baseUrl: ROUTER, scenario: { name: 'x' } as unknown as CompiledScenario });
    await expect(bad.reset()).rejects.toThrow(/has format undefined/);
  });
});
