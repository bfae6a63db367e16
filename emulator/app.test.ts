import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { emulatorApp } from './app.ts';

const functionsDir = fileURLToPath(new URL('../dist/functions/', import.meta.url));

describe("emulatorApp: a GET answered in the request's own turn", () => {
  it('answers GET /api/v1/info/features again as a Response, not a promise, once it has answered it', async () => {
    const { app } = await emulatorApp({ functionsDir, auth: false });
    const get = () => app.fetch(new Request('http://router.test/api/v1/info/features'));

    const first = await get();
    const again = get();
    expect(again).toBeInstanceOf(Response);
    expect(await (again as Response).text()).toBe(await first.text());
  });

  it('answers GET /api/v1/info/features with a token it checked before as a Response, not a promise', async () => {
    const { app } = await emulatorApp({ functionsDir, auth: true });
    const login = await app.fetch(
      new Request('http://router.test/api/v1/auth/local', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'paradrop', password: '' }),
      }),
    );
    const { token } = (await login.json()) as { token: string };
    const get = (authorization: string) => app.fetch(new Request('http://router.test/api/v1/info/features', { headers: { authorization } }));

    const first = await get(`Bearer ${token}`);
    expect(first.status).toBe(200);
    const again = get(`Bearer ${token}`);
    expect(again).toBeInstanceOf(Response);
    expect(await (again as Response).text()).toBe(await first.text());
    expect((await get(`Bearer ${token}x`)).status).toBe(401);
  });

  it('answers every GET of the default scenario as a Response, not a promise, from its third request while nothing changed', async () => {
    // The clock stands still, as nothing else changes: telemetry's answer moves with it.
    const clock = vi.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-11-24T12:00:00Z'));
    onTestFinished(() => clock.mockRestore());
    const { app } = await emulatorApp({ functionsDir, auth: false });
    const manifest = JSON.parse(readFileSync(new URL('../dist/manifest.json', import.meta.url), 'utf8')) as { functions: { method: string; path: string }[] };
    const values: Record<string, string> = { chute: 'hello-world', network: 'wifi', mac: '6e:8d:3a:5f:21:c4', user: 'paradrop' };
    // Every GET but one change's (`/changes/:id`): the default scenario records none.
    const gets = manifest.functions.filter((fn) => fn.method === 'GET' && [...fn.path.matchAll(/:(\w+)/g)].every(([, name]) => name! in values));
    const paths = gets.map((fn) => fn.path.replace(/:(\w+)/g, (_, name: string) => values[name]!));
    expect(paths.length).toBeGreaterThan(20);
    const answered = async (path: string) => {
      const res = await app.fetch(new Request(`http://router.test${path}`));
      return { status: res.status, body: await res.text() };
    };
    for (const path of paths) {
      // The first request opens what it reads (the change log, the provisioning store); the second finds it at hand.
      const first = await answered(path);
      expect(first.status, path).toBe(200);
      expect(await answered(path), path).toEqual(first);
      const again = app.fetch(new Request(`http://router.test${path}`));
      expect(again, path).toBeInstanceOf(Response);
      expect(await (again as Response).text(), path).toBe(first.body);
    }
  });

  it('answers GET …/ssid with the SSID a PUT just set, then again at once', async () => {
    const { app } = await emulatorApp({ functionsDir, auth: false });
    const url = 'http://router.test/api/v1/chutes/hotspot/networks/guest/ssid';
    const ssid = async () => ((await (await app.fetch(new Request(url))).json()) as { ssid: string }).ssid;
    const before = await ssid();
    await ssid();

    const put = await app.fetch(
      new Request(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ssid: 'lab-guest' }) }),
    );
    expect(put.status).toBe(200);
    expect(before).not.toBe('lab-guest');
    expect(await ssid()).toBe('lab-guest');
    const again = app.fetch(new Request(url));
    expect(again).toBeInstanceOf(Response);
    expect(((await (again as Response).json()) as { ssid: string }).ssid).toBe('lab-guest');
  });
});
