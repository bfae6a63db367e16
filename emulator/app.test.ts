import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { emulatorApp } from './app.ts';

const functionsDir = fileURLToPath(new URL('../dist/functions/', import.meta.url));

describe('emulatorApp', () => {
  it('answers GET …/ssid with the SSID a PUT just set', async () => {
    const { app } = await emulatorApp({ functionsDir, auth: false });
    const url = 'http://router.test/api/v1/chutes/hotspot/networks/guest/ssid';
    const ssid = async () => ((await (await app.fetch(new Request(url))).json()) as { ssid: string }).ssid;
    const before = await ssid();
    const put = await app.fetch(
      new Request(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ssid: 'lab-guest' }) }),
    );
    expect(put.status).toBe(200);
    expect(before).not.toBe('lab-guest');
    expect(await ssid()).toBe('lab-guest');
  });
});
