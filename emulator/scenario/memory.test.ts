import { cp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { callFunction, okBody as get } from '../../test/support/call-function.ts';
import * as chute from '../../functions/chutes/chute.get.ts';
import * as leases from '../../functions/networks/leases.get.ts';
import * as stations from '../../functions/networks/stations.get.ts';
import * as hardware from '../../functions/info/hardware.get.ts';
import * as software from '../../functions/info/software.get.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { loadScenario } from './device.ts';

// A scenario is a recording: the emulator reads it at start (its documents) or on first use (its raw
// files and network recordings) and answers from memory after that. An edit shows after a restart.

const temp = useTempDir('chutebox-scenario-memory-');
const DEFAULT = fileURLToPath(new URL('../../fixtures/scenarios/default/', import.meta.url));
const WIFI = { chute: 'hello-world', network: 'wifi' };

/** A copy of the default scenario that the test may change. */
async function copyOfDefault(name: string): Promise<string> {
  const dir = path.join(await temp.folder(name), 'default');
  await cp(DEFAULT, dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

describe('the emulator answers from memory once it has read a scenario file', () => {
  it('GET /api/v1/info/hardware answers the same after the files it read are replaced or removed', async () => {
    const dir = await copyOfDefault('hardware');
    const { device } = await loadScenario(dir);
    const first = await get(hardware, device);
    expect(first).toMatchObject({ vendor: 'PC Engines', cpu: 'x86_64' });

    await writeFile(path.join(dir, 'proc/cpuinfo'), 'model name\t: edited\n');
    await rm(path.join(dir, 'sys'), { recursive: true });
    await rm(path.join(dir, 'proc/meminfo'));
    expect(await get(hardware, device)).toEqual(first);
    // A new start serves the scenario as it is now.
    expect(await get(hardware, (await loadScenario(dir)).device)).not.toEqual(first);
  });

  it('GET /api/v1/info/software: the uptime still follows the clock, from the /proc/uptime read once', async () => {
    const dir = await copyOfDefault('uptime');
    const { device, clock } = await loadScenario(dir, undefined, { clock: { now: 2_000_000_000_000, speed: 0 } });
    const { uptime } = await get(software, device);
    await rm(path.join(dir, 'proc/uptime'));
    await clock.set({ advanceMs: 600_000 });
    expect((await get(software, device)).uptime).toBe(uptime! + 600);
  });

  it('GET /api/v1/chutes/:chute answers the chute.yaml read at start, read-only to every caller', async () => {
    const dir = await copyOfDefault('chute');
    const { device } = await loadScenario(dir);
    await writeFile(path.join(dir, 'chutes/hello-world/chute.yaml'), 'name: hello-world\nversion: "9"\nstate: stopped\n');
    await rm(path.join(dir, 'chutes/hotspot'), { recursive: true });
    const { status, body } = await callFunction<{ name: string; version: string }>(chute, device, { chute: 'hello-world' });
    expect(status).toBe(200);
    expect(body.version).not.toBe('9');
    expect(await device.chuteNames()).toEqual(['hello-world', 'hotspot']);

    const stored = (await device.chute('hotspot'))!;
    expect(() => (stored.record.version = 'edited')).toThrow(TypeError);
    expect(() => ((stored.config.net as Record<string, unknown>).guest = null)).toThrow(TypeError);
    expect((await device.chute('hotspot'))!.record.version).toBe('2.1');
    expect((await device.chute('hotspot'))!.config.net).toHaveProperty('guest.type', 'wifi');
  });

  it('GET …/stations and …/leases answer the recordings as first read: a recording replaced later does not show', async () => {
    const dir = await copyOfDefault('network');
    // Still: the recordings as recorded, not moving with the clock (a living network reads them once too).
    const { device } = await loadScenario(dir, undefined, { still: true });
    const before = [await callFunction(stations, device, WIFI), await callFunction(leases, device, WIFI)];
    expect(before.map((answer) => answer.status)).toEqual([200, 200]);
    const folder = path.join(dir, 'chutes/hello-world/networks/wifi');
    await writeFile(path.join(folder, 'iw-station-dump.txt'), '');
    await rm(path.join(folder, 'dnsmasq.leases'));
    expect([await callFunction(stations, device, WIFI), await callFunction(leases, device, WIFI)]).toEqual(before);
  });
});
