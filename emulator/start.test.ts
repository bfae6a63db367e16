import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIST_FUNCTIONS } from '../test/support/test-bundles.ts';
import { EMULATOR_ACCOUNT } from './app.ts';
import { startEmulator, type RunningEmulator } from './start.ts';

describe('startEmulator: a router in a controller’s test suite', () => {
  let router: RunningEmulator;
  beforeAll(async () => {
    router = await startEmulator({ scenario: 'default', port: 0, auth: false, changeDelayMs: 0, functionsDir: DIST_FUNCTIONS });
  });
  afterAll(() => router.stop());

  const get = async (path: string) => (await fetch(`${router.url}/api/v1${path}`)).json();
  const ssid = () => get('/chutes/hotspot/networks/guest/ssid') as Promise<{ ssid: string }>;

  it('answers the scenario on a free port of 127.0.0.1', async () => {
    expect(router.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(router.scenario).toBe('default');
    expect(((await get('/chutes')) as { name: string }[]).map((chute) => chute.name).sort()).toEqual(['hello-world', 'hotspot']);
  });

  it('reset() brings back the scenario’s answers after a test changed them, and restore() a snapshot’s', async () => {
    const recorded = (await ssid()).ssid;
    const put = (value: string) =>
      fetch(`${router.url}/api/v1/chutes/hotspot/networks/guest/ssid`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ssid: value }),
      });
    expect((await put('changed')).status).toBe(200);
    const changed = await router.snapshot();
    expect((await ssid()).ssid).toBe('changed');
    await router.reset();
    expect((await ssid()).ssid).toBe(recorded);
    await router.restore(changed);
    expect((await ssid()).ssid).toBe('changed');
    await router.reset();
  });

  it('clock() reads the emulated clock and setClock() sets it as PATCH /_chutebox/clock does; reset() puts it back as started', async () => {
    const start = Date.UTC(2026, 0, 1, 12);
    const frozen = await startEmulator({ auth: false, functionsDir: DIST_FUNCTIONS, seed: 9, clock: { now: start, speed: 0 } });
    try {
      expect(await frozen.clock()).toEqual({ now: start, elapsedMs: 0, speed: 0 });
      expect(await frozen.setClock({ advanceMs: 600_000 })).toEqual({ now: start + 600_000, elapsedMs: 600_000, speed: 0 });
      // Running at speed 2, the clock moves on as the answer is read: only its speed is certain.
      expect(await frozen.setClock({ speed: 2 })).toMatchObject({ speed: 2 });
      expect(await (await fetch(`${frozen.url}/_chutebox/clock`)).json()).toMatchObject({ speed: 2 });
      await expect(frozen.setClock({ advanceMs: -1 })).rejects.toMatchObject({ status: 422, errors: [{ path: 'advanceMs' }] });
      expect((await frozen.snapshot()).seed).toBe(9);
      await frozen.reset();
      expect(await frozen.clock()).toEqual({ now: start, elapsedMs: 0, speed: 0 });
    } finally {
      await frozen.stop();
    }
  });

  it('stop() closes the port', async () => {
    const other = await startEmulator({ auth: false, functionsDir: DIST_FUNCTIONS });
    await other.stop();
    await expect(fetch(`${other.url}/api/v1/info/features`)).rejects.toThrow();
  });
});

describe('startEmulator with a compiled scenario (an object)', () => {
  it('serves the scenario the document holds, as by its name', async () => {
    const document = JSON.parse(await readFile(path.join(DIST_FUNCTIONS, '..', 'scenarios', 'gl-ar150.json'), 'utf8'));
    const [fromObject, byName] = await Promise.all([
      startEmulator({ scenario: document, auth: false, functionsDir: DIST_FUNCTIONS }),
      startEmulator({ scenario: 'gl-ar150', auth: false, functionsDir: DIST_FUNCTIONS }),
    ]);
    const hardware = async (router: RunningEmulator) => (await fetch(`${router.url}/api/v1/info/hardware`)).json();
    try {
      expect(fromObject.scenario).toBe('gl-ar150');
      expect(await hardware(fromObject)).toEqual(await hardware(byName));
    } finally {
      await Promise.all([fromObject.stop(), byName.stop()]);
    }
  });
});

describe('startEmulator with auth (the default)', () => {
  it('responds with 401 without credentials, and serves the emulator account’s token', async () => {
    const router = await startEmulator({ functionsDir: DIST_FUNCTIONS });
    try {
      expect((await fetch(`${router.url}/api/v1/chutes`)).status).toBe(401);
      const login = await fetch(`${router.url}/api/v1/auth/local`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(EMULATOR_ACCOUNT),
      });
      const { token } = (await login.json()) as { token: string };
      expect((await fetch(`${router.url}/api/v1/chutes`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      await router.stop();
    }
  });
});

describe('startEmulator with fault rules', () => {
  it('starts with the rules given, adds and clears them in-process, and reset() brings back the ones it started with', async () => {
    const router = await startEmulator({ auth: false, functionsDir: DIST_FUNCTIONS, faults: [{ match: { path: '/api/v1/chutes' }, effect: { status: 502 } }] });
    const status = async () => (await fetch(`${router.url}/api/v1/chutes`)).status;
    try {
      expect(await status()).toBe(502);
      await router.faults.clear();
      expect(await status()).toBe(200);
      expect(await router.faults.add({ id: 'down', match: { path: '/api/v1/chutes' }, effect: { status: 503 } })).toMatchObject({ id: 'down', probability: 1 });
      expect(await status()).toBe(503);
      await router.reset();
      expect((await router.faults.list()).map((rule) => rule.effect)).toEqual([{ status: 502 }]);
    } finally {
      await router.stop();
    }
  });

  it('refuses rules that do not check, naming each field', async () => {
    await expect(
      startEmulator({ auth: false, functionsDir: DIST_FUNCTIONS, faults: [{ effect: { status: 503 } }, { effect: { fault: 'melt' } as never }] }),
    ).rejects.toMatchObject({
      status: 422,
      errors: [{ path: 'faults[1].effect.fault' }],
    });
  });
});
