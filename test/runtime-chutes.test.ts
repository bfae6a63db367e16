import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { writeChute } from './support/chute-state.ts';
import { startChutebox, type Started } from './spawn.ts';
import { useTempDir } from './temp-dir.ts';

/**
 * The chute read endpoints of `chutebox serve` on chutes in a fresh state dir, with no container
 * engine reachable (the Docker socket does not exist): states are the last ones the records keep.
 */

const temp = useTempDir('chutebox-runtime-chutes-');

/** Exactly the environment the server gets: no CHUTEBOX_* setting leaks in from the test runner. */
const SERVER_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

const NET = { wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'chutebox-test', key: 'chutebox-key', dhcp: { start: 100, limit: 50, lease: '12h' } } };

interface Answer {
  status: number;
  type: string | null;
  text: string;
}

describe('chutes on chutebox serve without a container engine', () => {
  let server: Started;
  let stateDir: string;

  async function call(endpoint: string, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await fetch(`${server.url}/api/v1/chutes${endpoint}`, { headers });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  }

  async function get(endpoint: string): Promise<unknown> {
    const answer = await call(endpoint);
    expect(answer, endpoint).toMatchObject({ status: 200, type: 'application/json' });
    return JSON.parse(answer.text);
  }

  beforeAll(async () => {
    stateDir = await temp.folder('state');
    await writeChute(stateDir, 'netprobe', NET, { wifi: { hostInterface: 'vwlan0', leaseFile: '/run/chutebox/netprobe-wifi.leases' } });
    await writeChute(stateDir, 'archive', {}, {});
    const archive = path.join(stateDir, 'chutes', 'archive');
    await writeFile(
      path.join(archive, 'chute.json'),
      JSON.stringify({ name: 'archive', version: '0.9', state: 'stopped', environment: { TZ: 'UTC' }, allocation: { cpu_shares: 256, prioritize_traffic: true }, resources: null }),
    );
    await writeFile(path.join(archive, 'cache.json'), JSON.stringify({ containerId: '5f1c', uploadToken: 'tok-999', networks: {} }));
    const noSocket = path.join(stateDir, 'no-docker.sock');
    server = await startChutebox(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, '--docker-socket', noSocket], SERVER_ENV);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('GET /api/v1/chutes/ lists the chutes of the state dir, sorted by name, in their stored states', async () => {
    expect(await get('/')).toEqual([
      { name: 'archive', version: '0.9', state: 'stopped', environment: { TZ: 'UTC' }, allocation: { cpu_shares: 256, prioritize_traffic: true }, resources: null },
      { name: 'netprobe', version: '1', state: 'running', environment: {}, allocation: { cpu_shares: 1024, prioritize_traffic: false }, resources: {} },
    ]);
    expect(await get('')).toEqual(await get('/'));
  });

  it('GET /api/v1/chutes/:chute reads one chute', async () => {
    expect(await get('/netprobe')).toEqual({
      name: 'netprobe',
      version: '1',
      state: 'running',
      environment: {},
      allocation: { cpu_shares: 1024, prioritize_traffic: false },
      resources: {},
    });
  });

  it('GET /api/v1/chutes/:chute/config answers the stored configuration, in JSON or YAML, the Wi-Fi key hidden', async () => {
    const answered = { net: { wifi: { ...NET.wifi, key: '[redacted]' } } };
    expect(await get('/netprobe/config')).toEqual(answered);
    const yaml = await call('/netprobe/config', { accept: 'application/yaml' });
    expect(yaml).toMatchObject({ status: 200, type: 'application/yaml' });
    expect(parse(yaml.text)).toEqual(answered);
    expect(yaml.text).not.toContain('chutebox-key');
  });

  it('GET /api/v1/chutes/:chute/cache answers the cache with its secrets redacted', async () => {
    expect(await get('/archive/cache')).toEqual({ containerId: '5f1c', uploadToken: '[redacted]', networks: {} });
    expect(await get('/netprobe/cache')).toEqual({ networks: { wifi: { hostInterface: 'vwlan0', leaseFile: '/run/chutebox/netprobe-wifi.leases' } } });
  });

  it('responds with 404 for an unknown chute and 400 naming params.chute for a bad name', async () => {
    for (const endpoint of ['/nosuch', '/nosuch/config', '/nosuch/cache']) expect((await call(endpoint)).status, endpoint).toBe(404);
    const bad = await call('/..%2Fchutes');
    expect(bad).toMatchObject({ status: 400, type: 'application/problem+json' });
    expect(JSON.parse(bad.text).errors).toEqual([expect.objectContaining({ path: 'params.chute' })]);
  });
});
