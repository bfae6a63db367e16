import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
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
