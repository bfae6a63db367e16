import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from './support/http-client.ts';
import { CLEAN_ENV, CLI, useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

const temp = useTempDir('chutebox-fleet-test-');
const start = useChutebox();

interface FleetList {
  size: number;
  devices: { id: string; scenario: string }[];
}

describe('chutebox emulate --fleet', () => {
  it('serves N devices, each its own: a write to one changes no other', async () => {
    const fleet = await start(['emulate', '--port', '0', '--no-auth', '--fleet', '3', '--seed', '9']);
    expect(fleet.output()).toContain('fleet of 3 devices, seed 9');
    expect((await call<FleetList>(fleet.url, 'GET', '/_chutebox/fleet')).body.devices.map((device) => device.id)).toEqual(['router-0', 'router-1', 'router-2']);
    const ssid = '/api/v1/chutes/hotspot/networks/guest/ssid';
    expect((await call(fleet.url, 'PUT', `/devices/router-0${ssid}`, { json: { ssid: 'fleet-zero' } })).status).toBe(200);
    expect((await call(fleet.url, 'GET', `/devices/router-0${ssid}`)).body).toMatchObject({ ssid: 'fleet-zero' });
    expect((await call(fleet.url, 'GET', `/devices/router-1${ssid}`)).body).not.toMatchObject({ ssid: 'fleet-zero' });
    expect((await call(fleet.url, 'GET', '/devices/router-3/api/v1/chutes')).status).toBe(404);
  });

  it('gives the same devices, with the same seeds, after a restart with the same seed', async () => {
    const seeds = async (seed: string) => {
      const fleet = await start(['emulate', '--port', '0', '--no-auth', '--fleet', '4', '--seed', seed]);
      const states = await Promise.all(
        [0, 1, 2, 3].map(async (index) => (await call<{ seed: number }>(fleet.url, 'GET', `/devices/router-${index}/_chutebox/state`)).body.seed),
      );
      await fleet.stop();
      return states;
    };
    const first = await seeds('21');
    expect(new Set(first).size).toBe(4);
    expect(await seeds('21')).toEqual(first);
    expect(await seeds('22')).not.toEqual(first);
  });

  it('mixes scenarios by the shares of a fleet file', async () => {
    const file = path.join(await temp.folder('file'), 'fleet.yaml');
    await writeFile(file, 'size: 200\nscenarios:\n  - scenario: default\n    share: 0.7\n  - scenario: gl-ar150\n    share: 0.3\n');
    const fleet = await start(['emulate', '--port', '0', '--no-auth', '--fleet-file', file]);
    const list = (await call<FleetList>(fleet.url, 'GET', '/_chutebox/fleet?limit=200')).body;
    expect(list.size).toBe(200);
    const glinet = list.devices.filter((device) => device.scenario === 'gl-ar150');
    expect(glinet.length).toBeGreaterThan(40);
    expect(glinet.length).toBeLessThan(80);
    const board = async (id: string) => (await call<{ board: string }>(fleet.url, 'GET', `/devices/${id}/api/v1/info/hardware`)).body.board;
    const other = list.devices.find((device) => device.scenario === 'default')!;
    expect(await board(glinet[0]!.id)).not.toBe(await board(other.id));
  });

  it('asks every device for credentials unless --no-auth, and a login on a device lets in on that device only', async () => {
    const fleet = await start(['emulate', '--port', '0', '--fleet', '2']);
    expect((await call(fleet.url, 'GET', '/devices/router-1/api/v1/chutes')).status).toBe(401);
    expect((await call(fleet.url, 'GET', '/_chutebox/fleet')).status).toBe(401);
    const login = await call<{ token: string }>(fleet.url, 'POST', '/devices/router-1/api/v1/auth/local', { json: { username: 'paradrop', password: '' } });
    expect(login.status).toBe(200);
    const token = { authorization: `Bearer ${login.body.token}` };
    expect((await call(fleet.url, 'GET', '/devices/router-1/api/v1/chutes', { headers: token })).status).toBe(200);
    expect((await call(fleet.url, 'GET', '/devices/router-1/_chutebox/clock', { headers: token })).status).toBe(200);
    // As with two routers: a token one device issued is no good on another.
    expect((await call(fleet.url, 'GET', '/devices/router-0/api/v1/chutes', { headers: token })).status).toBe(401);
  });

  it('exits with code 2 naming --fleet for a size that is not 1 to 1000000, and 1 naming the field of a bad fleet file', async () => {
    for (const size of ['0', 'ten', '1000001']) {
      const run = spawnSync(process.execPath, [CLI, 'emulate', '--port', '0', '--fleet', size], { env: CLEAN_ENV, encoding: 'utf8', timeout: 20_000 });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain('--fleet');
    }
    const file = path.join(await temp.folder('bad'), 'fleet.json');
    await writeFile(file, JSON.stringify({ size: 5, scenarios: [{ scenario: 'default', share: 0 }] }));
    const run = spawnSync(process.execPath, [CLI, 'emulate', '--port', '0', '--fleet-file', file], { env: CLEAN_ENV, encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('scenarios[0].share');
  });
});
