import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../emulator/scenario/device.ts';
import type { Environment, Telemetry } from '../functions/info/schemas.ts';
import { CLEAN_ENV, useChutebox, type Started } from './support/spawn.ts';
import { useStillScenario } from './support/still-scenario.ts';

/** The default scenario's raw files: what the answers are checked against (served without its living network). */
const SCENARIO = new URL('../fixtures/scenarios/default/', import.meta.url);
const raw = (file: string) => readFile(new URL(file, SCENARIO), 'utf8');

const start = useChutebox();
const stillDefault = useStillScenario('default');
const emulate = (args: string[]) => start(['emulate', '--port', '0', ...args]);

async function login(url: string, password: string): Promise<Response> {
  return fetch(`${url}/api/v1/auth/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'paradrop', password }),
  });
}

/** The recording's clock: `btime` of proc/stat and the uptime of proc/uptime, in seconds. */
async function recordedClock(): Promise<{ bootTime: number; uptime: number }> {
  const bootTime = Number(/^btime (\d+)$/m.exec(await raw('proc/stat'))![1]);
  return { bootTime, uptime: Number((await raw('proc/uptime')).split(' ')[0]) };
}

describe('chutebox emulate (default scenario)', () => {
  let server: Started;
  let token: string;
  /** Epoch seconds before the emulator was started and once it listened: its start is between. */
  let startedAfter: number;
  let startedBefore: number;

  const get = async <T = unknown>(endpoint: string): Promise<T> => {
    const res = await fetch(`${server.url}/api/v1/info/${endpoint}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    startedAfter = Date.now() / 1000;
    server = await emulate(['--scenario', await stillDefault()]);
    startedBefore = Date.now() / 1000;
    const res = await login(server.url, '');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { username: string; success: boolean; token: string };
    expect(body).toMatchObject({ username: 'paradrop', success: true });
    token = body.token;
  });

  it('prints one listening line on stdout, then the scenario and how to log in', () => {
    const lines = server.output().split('\n');
    expect(lines.filter((line) => line.startsWith('listening on '))).toEqual([`listening on ${server.url}`]);
    expect(lines[0]).toBe(`listening on ${server.url}`);
    expect(server.output()).toContain('scenario default: PC Engines apu2');
    expect(server.output()).toContain(`${server.url}/api/v1/auth/local`);
  });

  it('responds to a login with a wrong password with 401', async () => {
    const res = await login(server.url, 'guess');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ username: 'paradrop', success: false });
  });

  it('responds to a request without a token with 401 and a problem', async () => {
    const res = await fetch(`${server.url}/api/v1/info/hardware`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await res.json()).toMatchObject({ status: 401, title: 'Unauthorized' });
  });

  it('GET /api/v1/info/hardware responds with the board, memory and both radios of the scenario', async () => {
    const memTotalKb = Number(/^MemTotal:\s+(\d+) kB$/m.exec(await raw('proc/meminfo'))![1]);
    const mac = async (phy: string) => (await raw(`sys/class/ieee80211/${phy}/macaddress`)).trim();
    expect(await get('hardware')).toEqual({
      vendor: (await raw('sys/class/dmi/id/sys_vendor')).trim(),
      board: `${(await raw('sys/class/dmi/id/product_name')).trim()} ${(await raw('sys/class/dmi/id/product_version')).trim()}`,
      cpu: 'x86_64',
      memory: memTotalKb * 1024,
      wifi: [
        { id: 'pci-wifi-0', slot: 'pci/0000:04:00.0', macAddr: await mac('phy0'), vendorId: '0x168c', deviceId: '0x003c' },
        { id: 'pci-wifi-1', slot: 'pci/0000:05:00.0', macAddr: await mac('phy1'), vendorId: '0x168c', deviceId: '0x0033' },
      ],
    });
  });

  it('GET /api/v1/info/software responds with coreboot, OpenWrt and the scenario uptime, grown since the emulator started', async () => {
    const release = await raw('etc/openwrt_release');
    const { uptime } = await recordedClock();
    const body = await get<{ uptime: number }>('software');
    expect(body.uptime).toBeGreaterThanOrEqual(Math.floor(uptime));
    expect(body.uptime).toBeLessThanOrEqual(Math.floor(uptime + Date.now() / 1000 - startedAfter));
    expect(body).toEqual({
      biosVendor: 'coreboot',
      biosVersion: 'v4.19.0.1',
      biosDate: (await raw('sys/class/dmi/id/bios_date')).trim(),
      osVersion: /^DISTRIB_DESCRIPTION='(.*)'$/m.exec(release)![1],
      kernelVersion: 'Linux-5.15.167',
      pdVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
      uptime: body.uptime,
    });
  });

  it("answers the audio server the scenario recorded (pactl's own outputs), and a volume set is read back", async () => {
    const audio = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}/api/v1/audio/${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    const recorded = JSON.parse(await readFile(new URL('pactl/sinks.json', SCENARIO), 'utf8')) as { name: string }[];
    const sinks = (await (await audio('sinks')).json()) as { name: string; volume: number[] }[];
    expect(sinks.map((sink) => sink.name)).toEqual(recorded.map((sink) => sink.name));
    expect((await audio(`sinks/${sinks[0]!.name}/volume`, { method: 'PUT', body: '[0.5]' })).status).toBe(200);
    const after = (await (await audio('sinks')).json()) as { name: string; volume: number[] }[];
    expect(after[0]!.volume.every((volume) => Math.abs(volume - 0.5) < 0.01)).toBe(true);
    expect((await audio('sinks/nosuch/volume', { method: 'PUT', body: '[0.5]' })).status).toBe(404);
  });

  it('GET /api/v1/info/features responds with docker, as the scenario has an engine, chute-networks, as it has their programs, and audio, as it records pactl', async () => {
    expect(await get('features')).toEqual(['hostapd-control', 'docker', 'chute-networks', 'audio']);
  });

  it('GET /api/v1/info/environment responds with the recorded environment, secrets redacted', async () => {
    const entries = (await raw('proc/self/environ')).split('\0').filter((entry) => entry !== '');
    const body = await get<Environment>('environment');
    expect(Object.keys(body)).toEqual(entries.map((entry) => entry.slice(0, entry.indexOf('='))));
    expect(body.PATH).toBe('/usr/sbin:/usr/bin:/sbin:/bin');
    expect(body.CHUTEBOX_CONTROLLER_TOKEN).toBe('[redacted]');
  });

  it('GET /api/v1/info/telemetry responds with the scenario CPUs, interfaces, disks and both chutes, booted the recorded uptime before the start', async () => {
    const before = Date.now() / 1000;
    const body = await get<Telemetry>('telemetry');
    expect(body.time).toBeGreaterThanOrEqual(Math.floor(before));
    expect(body.system.cpu_count).toBe(4);
    const { uptime } = await recordedClock();
    expect(body.system.boot_time).toBeGreaterThanOrEqual(Math.floor(startedAfter - uptime));
    expect(body.system.boot_time).toBeLessThanOrEqual(Math.floor(startedBefore - uptime));
    expect(body.system.load_average).toEqual([0.08, 0.04, 0.01]);
    expect(body.system.virtual_memory.total).toBe(4078096384);
    expect(body.network.map((n) => n.name)).toEqual(
      expect.arrayContaining(['lo', 'eth0', 'eth1', 'eth2', 'br-lan', 'phy0-ap0', 'phy1-ap0', 'phy1-ap1', 'phy0-mon0', 'br-lan.20']),
    );
    expect(body.system.disk_usage.map((d) => d.mountpoint)).toEqual(expect.arrayContaining(['/', '/boot']));
    expect(body.chutes).toEqual([
      {
        name: 'hotspot',
        service: 'main',
        state: 'running',
        cpu: { total_usage_ns: 61872004000, percent: expect.any(Number) },
        memory: { usage: expect.any(Number), limit: 4078096384 },
        network: { rx_bytes: 2863876, tx_bytes: 2626055 },
        pids: 4,
      },
      {
        name: 'hello-world',
        service: 'main',
        state: 'running',
        cpu: { total_usage_ns: 4187336000, percent: expect.any(Number) },
        memory: { usage: expect.any(Number), limit: 4078096384 },
        network: { rx_bytes: 1534998, tx_bytes: 1389210 },
        pids: 1,
      },
    ]);
  });
});

describe('the default scenario is one device', () => {
  it('its interfaces include the host interface of every chute network, and its containers are the chutes', async () => {
    const { device } = await loadScenario('default');
    const interfaces = (await raw('proc/net/dev'))
      .split('\n')
      .slice(2)
      .map((line) => line.split(':')[0]!.trim())
      .filter((name) => name !== '');
    const chutes = await Promise.all((await device.chuteNames()).map((name) => device.chute(name)));
    const hostInterfaces = chutes.flatMap((chute) =>
      Object.values((chute!.cache.networks ?? {}) as Record<string, { hostInterface?: string }>).map((network) => network.hostInterface),
    );
    expect(hostInterfaces).toEqual(['phy1-ap1', 'phy0-ap0', 'br-lan.20', 'phy0-mon0']);
    expect(interfaces).toEqual(expect.arrayContaining(hostInterfaces));
    const labels = (await device.containers())!.map((container) => (container.Labels as Record<string, string>)['io.chutebox.chute']);
    expect(labels.sort()).toEqual(chutes.map((chute) => chute!.name));
  });
});

describe('chutebox emulate --no-auth', () => {
  it('responds with 200 without a token', async () => {
    const server = await emulate(['--no-auth', '--scenario', 'gl-ar150']);
    expect(server.output()).toContain('authentication is off');
    const res = await fetch(`${server.url}/api/v1/info/hardware`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      vendor: 'GL.iNet',
      board: 'GL.iNet GL-AR150',
      cpu: 'mips',
      wifi: [{ id: 'platform-wifi-0', slot: 'platform/18100000.wmac', macAddr: 'e4:95:6e:4a:3b:21', vendorId: null, deviceId: null }],
    });
    expect(await (await fetch(`${server.url}/api/v1/info/features`)).json()).toEqual(['hostapd-control']);
  });

  it('is also turned on by CHUTEBOX_NO_AUTH=1', async () => {
    const server = await start(['emulate', '--port', '0'], { ...CLEAN_ENV, CHUTEBOX_NO_AUTH: '1' });
    expect((await fetch(`${server.url}/api/v1/info/features`)).status).toBe(200);
  });
});

describe('chutebox emulate with a bad scenario', () => {
  it('exits with a message listing the built-in scenarios', async () => {
    const failure = await emulate(['--scenario', 'nosuch']).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/exited with 1[\s\S]*unknown scenario "nosuch"; built-in scenarios: default, gl-ar150/);
  });
});
