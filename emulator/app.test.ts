import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { emulatorApp } from './app.ts';

const functionsDir = fileURLToPath(new URL('../dist/functions/', import.meta.url));

/** Every GET path of the build's manifest, filled in for the default scenario (but one change's: it records none). */
function defaultScenarioGets(): string[] {
  const manifest = JSON.parse(readFileSync(new URL('../dist/manifest.json', import.meta.url), 'utf8')) as { functions: { method: string; path: string }[] };
  const values: Record<string, string> = { chute: 'hello-world', network: 'wifi', mac: '6e:8d:3a:5f:21:c4', user: 'paradrop' };
  return manifest.functions
    .filter((fn) => fn.method === 'GET' && [...fn.path.matchAll(/:(\w+)/g)].every(([, name]) => name! in values))
    .map((fn) => fn.path.replace(/:(\w+)/g, (_, name: string) => values[name]!));
}

describe('emulatorApp: ETags', () => {
  it('answers every GET of the default scenario with an ETag, and a 304 without a body to a request that names it', async () => {
    // The clock stands still, as nothing else changes: telemetry's answer moves with it.
    const clock = vi.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-11-24T12:00:00Z'));
    onTestFinished(() => clock.mockRestore());
    const { app } = await emulatorApp({ functionsDir, auth: false });
    const paths = defaultScenarioGets();
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) {
      const first = await app.fetch(new Request(`http://router.test${path}`));
      expect(first.status, path).toBe(200);
      const etag = first.headers.get('etag');
      expect(etag, path).toMatch(/^"[0-9a-f]{32}"$/);
      const again = await app.fetch(new Request(`http://router.test${path}`, { headers: { 'if-none-match': etag! } }));
      expect(again.status, path).toBe(304);
      expect(again.headers.get('etag'), path).toBe(etag);
      expect(again.headers.get('content-type'), path).toBeNull();
      expect(await again.text(), path).toBe('');
    }
  });

  it('answers GET …/ssid with a new ETag after a PUT changed it, and the new body to a request with the old one', async () => {
    const { app } = await emulatorApp({ functionsDir, auth: false });
    const url = 'http://router.test/api/v1/chutes/hotspot/networks/guest/ssid';
    const before = await app.fetch(new Request(url));
    const old = before.headers.get('etag')!;
    expect(((await before.json()) as { ssid: string }).ssid).not.toBe('lab-guest');

    const put = await app.fetch(
      new Request(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ssid: 'lab-guest' }) }),
    );
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).toBeNull();
    const after = await app.fetch(new Request(url, { headers: { 'if-none-match': old } }));
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(old);
    expect(((await after.json()) as { ssid: string }).ssid).toBe('lab-guest');
  });

  it('answers HEAD with the headers of the GET and no body', async () => {
    const { app } = await emulatorApp({ functionsDir, auth: false });
    const url = 'http://router.test/api/v1/config/hostconfig';
    const get = await app.fetch(new Request(url, { headers: { accept: 'application/yaml' } }));
    const head = await app.fetch(new Request(url, { method: 'HEAD', headers: { accept: 'application/yaml' } }));
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(head.headers.get('content-type')).toBe('application/yaml');
    expect(await head.text()).toBe('');
    const notModified = await app.fetch(
      new Request(url, { method: 'HEAD', headers: { accept: 'application/yaml', 'if-none-match': get.headers.get('etag')! } }),
    );
    expect(notModified.status).toBe(304);
  });
});
