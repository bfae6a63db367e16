import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InputProblem } from './support/call-function.ts';
import { callApi, getJson } from './support/http-client.ts';
import { parse } from 'yaml';
import { writeChute } from './support/chute-state.ts';
import { startChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * The chute read endpoints of `chutebox serve` on chutes in a fresh state dir, with no container
 * engine reachable (the Docker socket does not exist): states are the last ones the records keep.
 */

const temp = useTempDir('chutebox-runtime-chutes-');

/** Exactly the environment the server gets: no CHUTEBOX_* setting leaks in from the test runner. */
const SERVER_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

const NET = { wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'chutebox-test', key: 'chutebox-key', dhcp: { start: 100, limit: 50, lease: '12h' } } };

describe('chutes on chutebox serve without a container engine', () => {
  let server: Started;
  let stateDir: string;

  beforeAll(async () => {
    stateDir = await temp.folder('state');
    await writeChute(stateDir, 'netprobe', NET, { wifi: { hostInterface: 'vwlan0', leaseFile: '/run/chutebox/netprobe-wifi.leases' } });
    await writeChute(stateDir, 'archive', {}, {});
    const archive = path.join(stateDir, 'chutes', 'archive');
    await writeFile(
      path.join(archive, 'chute.json'),
      JSON.stringify({
        name: 'archive',
        version: '0.9',
        state: 'stopped',
        environment: { TZ: 'UTC' },
        allocation: { cpu_shares: 256, prioritize_traffic: true },
        resources: null,
      }),
    );
    await writeFile(path.join(archive, 'cache.json'), JSON.stringify({ containerId: '5f1c', uploadToken: 'tok-999', networks: {} }));
    const noSocket = path.join(stateDir, 'no-docker.sock');
    server = await startChutebox(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, '--docker-socket', noSocket], SERVER_ENV);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('GET /api/v1/chutes/ lists the chutes of the state dir, sorted by name, in their stored states', async () => {
    expect(await getJson(server, '/chutes/')).toEqual([
      {
        name: 'archive',
        version: '0.9',
        state: 'stopped',
        environment: { TZ: 'UTC' },
        allocation: { cpu_shares: 256, prioritize_traffic: true },
        resources: null,
        services: { main: { state: 'stopped', allocation: { cpu_shares: 256, prioritize_traffic: true } } },
        owner: null,
      },
      {
        name: 'netprobe',
        version: '1',
        state: 'running',
        environment: {},
        allocation: { cpu_shares: 1024, prioritize_traffic: false },
        resources: {},
        services: { main: { state: 'running', allocation: { cpu_shares: 1024, prioritize_traffic: false } } },
        owner: null,
      },
    ]);
    expect(await getJson(server, '/chutes')).toEqual(await getJson(server, '/chutes/'));
  });

  it('GET /api/v1/chutes/:chute reads one chute', async () => {
    expect(await getJson(server, '/chutes/netprobe')).toEqual({
      name: 'netprobe',
      version: '1',
      state: 'running',
      environment: {},
      allocation: { cpu_shares: 1024, prioritize_traffic: false },
      resources: {},
      services: { main: { state: 'running', allocation: { cpu_shares: 1024, prioritize_traffic: false } } },
      owner: null,
    });
  });

  it('GET /api/v1/chutes/:chute/config answers the stored configuration, in JSON or YAML, the Wi-Fi key hidden', async () => {
    const answered = { net: { wifi: { ...NET.wifi, key: '[redacted]' } } };
    expect(await getJson(server, '/chutes/netprobe/config')).toEqual(answered);
    const yaml = await callApi(server, 'GET', '/chutes/netprobe/config', undefined, undefined, { accept: 'application/yaml' });
    expect(yaml).toMatchObject({ status: 200, type: 'application/yaml' });
    expect(parse(yaml.text)).toEqual(answered);
    expect(yaml.text).not.toContain('chutebox-key');
  });

  it('GET /api/v1/chutes/:chute/cache answers the cache with its secrets redacted', async () => {
    expect(await getJson(server, '/chutes/archive/cache')).toEqual({ containerId: '5f1c', uploadToken: '[redacted]', networks: {} });
    expect(await getJson(server, '/chutes/netprobe/cache')).toEqual({
      networks: { wifi: { hostInterface: 'vwlan0', leaseFile: '/run/chutebox/netprobe-wifi.leases' } },
    });
  });

  it('responds with 404 for an unknown chute and 400 naming params.chute for a bad name', async () => {
    for (const endpoint of ['/nosuch', '/nosuch/config', '/nosuch/cache'])
      expect((await callApi(server, 'GET', `/chutes${endpoint}`)).status, endpoint).toBe(404);
    const bad = await callApi<InputProblem>(server, 'GET', '/chutes/..%2Fchutes');
    expect(bad).toMatchObject({ status: 400, type: 'application/problem+json' });
    expect(bad.body.errors).toEqual([expect.objectContaining({ path: 'params.chute' })]);
  });
});
