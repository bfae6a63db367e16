import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { nanoTime } from '../functions/core/logs.ts';
import { CHUTE_LABEL, type LogEntry } from '../functions/core/device/index.ts';
import { deviceTime } from '../functions/info/device-time.ts';
import type { Environment, Software, Telemetry } from '../functions/info/schemas.ts';
import { parseLogFile } from '../runtime/scenario/format.ts';
import { programsOnPath } from '../runtime/tools/programs.ts';
import { CLEAN_ENV, CLI, useChutebox, type Started } from './support/spawn.ts';
import { installChute, writeChute } from './support/chute-state.ts';
import { dockerUnavailableReason, startDockerd, type Dockerd } from './support/dockerd.ts';
import { STATION_DUMP, STATION_MACS, writeFakeIw } from './support/fake-iw.ts';

let tmp: string;
let out: string;
/** The one environment of all three processes, so the environment endpoint must answer the same. */
let env: NodeJS.ProcessEnv;

function chutebox(args: string[], environment: NodeJS.ProcessEnv = env) {
  return spawnSync(process.execPath, [CLI, ...args], { env: environment, encoding: 'utf8', timeout: 60_000 });
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'chutebox-record-e2e-'));
  out = path.join(tmp, 'this-machine');
  env = {
    ...CLEAN_ENV,
    CHUTEBOX_DOCKER_SOCKET: path.join(tmp, 'no-docker.sock'),
    // The state dir that `chutebox serve` below uses: it has no chutes.
    CHUTEBOX_STATE_DIR: path.join(tmp, 'state'),
    RECORD_PROBE: 'visible',
    RECORD_PROBE_TOKEN: 'record-probe-secret',
  };
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const start = useChutebox();

describe('chutebox record, then emulate the recording beside chutebox serve', () => {
  let emulated: Started;
  let live: Started;

  beforeAll(async () => {
    const recorded = chutebox(['record', '--out', out]);
    expect(recorded.stderr).toBe('');
    expect(recorded.status).toBe(0);
    expect(recorded.stdout).toContain(`into ${out}`);
    emulated = await start(['emulate', '--scenario', out, '--no-auth', '--port', '0'], env);
    live = await start(['serve', '--host', '127.0.0.1', '--port', '0'], env);
  });

  /** The answers of the emulated recording and of the live device. */
  async function both<T = unknown>(endpoint: string): Promise<[T, T]> {
    const [recorded, current] = await Promise.all(
      [emulated, live].map(async (server) => {
        const res = await fetch(`${server.url}/api/v1/info/${endpoint}`);
        expect(res.status).toBe(200);
        return (await res.json()) as T;
      }),
    );
    return [recorded!, current!];
  }

  it('writes the raw files at their device paths, and uname and the programs on PATH into device.yaml', async () => {
    expect(await readFile(path.join(out, 'proc/meminfo'), 'utf8')).toMatch(/^MemTotal:/);
    const deviceYaml = await readFile(path.join(out, 'device.yaml'), 'utf8');
    expect(deviceYaml).toContain(`release: ${os.release()}`);
    expect(parse(deviceYaml).programs).toEqual([...(await programsOnPath(env.PATH!))]);
    expect((await readdir(tmp)).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('writes secret-looking environment values redacted', async () => {
    const environ = await readFile(path.join(out, 'proc/self/environ'), 'utf8');
    expect(environ).not.toContain('record-probe-secret');
    expect(environ.split('\0')).toEqual(expect.arrayContaining(['RECORD_PROBE_TOKEN=[redacted]', 'RECORD_PROBE=visible']));
  });

  it('GET /api/v1/info/hardware answers the same', async () => {
    const [recorded, current] = await both('hardware');
    expect(recorded).toEqual(current);
  });

  it('GET /api/v1/info/features answers the same', async () => {
    const [recorded, current] = await both('features');
    expect(recorded).toEqual(current);
  });

  it('GET /api/v1/info/environment answers the same', async () => {
    const [recorded, current] = await both<Environment>('environment');
    expect(recorded).toEqual(current);
    expect(recorded.RECORD_PROBE_TOKEN).toBe('[redacted]');
  });

  it('GET /api/v1/info/software answers the same, with the uptime of the recording', async () => {
    const [recorded, current] = await both<Software>('software');
    expect({ ...recorded, uptime: 0 }).toEqual({ ...current, uptime: 0 });
    expect(recorded.uptime).toBeLessThanOrEqual(current.uptime!);
  });

  it('GET /api/v1/config/new-config answers the same: the Ethernet interfaces of /sys/class/net are recorded', async () => {
    const [recorded, current] = await Promise.all(
      [emulated, live].map(async (server) => {
        const res = await fetch(`${server.url}/api/v1/config/new-config`);
        expect(res.status).toBe(200);
        return res.json() as Promise<{ wan?: { interface: string }; lan: { interfaces: string[] } }>;
      }),
    );
    expect(recorded).toEqual(current);
    const ethernet = [current!.wan?.interface, ...current!.lan.interfaces].filter((name) => name !== undefined);
    const device = async (name: string) => (await readlink(path.join(out, 'sys/class/net', name, 'device'))) !== '';
    for (const name of ethernet) expect(await device(name), name).toBe(true);
    // Of each interface only the entries that tell an Ethernet port are kept, not its ~40 attributes.
    for (const name of await readdir(path.join(out, 'sys/class/net'))) {
      expect(await readdir(path.join(out, 'sys/class/net', name)), name).toEqual(expect.not.arrayContaining(['address', 'mtu', 'statistics']));
    }
  });

  it('GET /api/v1/info/telemetry has the same CPUs, interfaces, mount points and memory', async () => {
    const [recorded, current] = await both<Telemetry>('telemetry');
    expect(recorded.system.cpu_count).toBe(current.system.cpu_count);
    expect(recorded.system.virtual_memory.total).toBe(current.system.virtual_memory.total);
    const names = (report: Telemetry) => report.network.map((n) => n.name);
    expect(names(recorded)).toEqual(names(current));
    // Mounts that tests running beside this one make under the temp dir come and go; the rest is the machine's.
    const mounts = (report: Telemetry) => report.system.disk_usage.map((d) => d.mountpoint).filter((m) => !m.startsWith(os.tmpdir()));
    expect(mounts(recorded)).toEqual(mounts(current));
    expect(recorded.chutes).toEqual([]);
  });
});

describe('chutebox record with installed chutes, then emulate the recording beside chutebox serve', () => {
  const LEASES = '1763757432 3c:22:fb:0a:11:01 192.168.128.117 laptop 01:3c:22:fb:0a:11:01\n0 02:11:22:33:44:55 192.168.128.20 printer *\n';
  let out: string;
  let recorded: ReturnType<typeof chutebox>;
  let emulated: Started;
  let live: Started;
  /** Epoch seconds before the recording and once the emulator listened: both happened between. */
  let recordStarted: number;
  let emulatorStarted: number;

  beforeAll(async () => {
    const state = path.join(tmp, 'chute-state');
    const iw = await writeFakeIw(path.join(tmp, 'fake-iw'), 'vwlan0', STATION_DUMP);
    await mkdir(path.join(tmp, 'leases'));
    await writeFile(path.join(tmp, 'leases', 'lab-wifi.leases'), LEASES);
    await writeChute(
      state,
      'lab',
      {
        wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'lab', key: 'lab-passphrase' },
        office: { type: 'vlan', intfName: 'eth1', vlan_id: 20 },
        air: { type: 'wifi', intfName: 'mon0', mode: 'monitor' },
      },
      {
        wifi: { hostInterface: 'vwlan0', hostapdControl: path.join(tmp, 'no-hostapd', 'vwlan0'), leaseFile: path.join(tmp, 'leases', 'lab-wifi.leases') },
        office: { hostInterface: 'eth1.20', leaseFile: path.join(tmp, 'leases', 'lab-office.leases') },
        air: { hostInterface: 'vmon0' },
      },
    );
    // No hostapd_cli here: hostapd's replies cannot be recorded.
    const withChutes = { ...env, CHUTEBOX_STATE_DIR: state, CHUTEBOX_IW: iw.path, CHUTEBOX_HOSTAPD_CLI: path.join(tmp, 'no-hostapd_cli') };
    out = path.join(tmp, 'with-chutes');
    recordStarted = Date.now() / 1000;
    recorded = chutebox(['record', '--out', out], withChutes);
    expect(recorded.status, recorded.stderr).toBe(0);
    emulated = await start(['emulate', '--scenario', out, '--no-auth', '--port', '0'], withChutes);
    emulatorStarted = Date.now() / 1000;
    live = await start(['serve', '--host', '127.0.0.1', '--port', '0'], withChutes);
  });

  it('writes the chute documents as YAML, the Wi-Fi key redacted', async () => {
    const chute = path.join(out, 'chutes', 'lab');
    expect(parse(await readFile(path.join(chute, 'chute.yaml'), 'utf8'))).toMatchObject({ name: 'lab', state: 'running' });
    expect(parse(await readFile(path.join(chute, 'service.yaml'), 'utf8'))).toEqual({
      net: {
        wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'lab', key: '[redacted]' },
        office: { type: 'vlan', intfName: 'eth1', vlan_id: 20 },
        air: { type: 'wifi', intfName: 'mon0', mode: 'monitor' },
      },
    });
    expect(parse(await readFile(path.join(chute, 'cache.yaml'), 'utf8'))).toMatchObject({ networks: { wifi: { hostInterface: 'vwlan0' } } });
    expect(recorded.stdout).toContain('1 installed chutes with 2 networks');
  });

  it("writes what the network's tools printed under the scenario names, verbatim", async () => {
    const networks = path.join(out, 'chutes', 'lab', 'networks');
    expect(await readdir(networks)).toEqual(['office', 'wifi']);
    expect((await readdir(path.join(networks, 'wifi'))).sort()).toEqual(['dnsmasq.leases', 'iw-station-dump.txt']);
    expect(await readFile(path.join(networks, 'wifi', 'iw-station-dump.txt'), 'utf8')).toBe(STATION_DUMP);
    expect(await readFile(path.join(networks, 'wifi', 'dnsmasq.leases'), 'utf8')).toBe(LEASES);
    // The VLAN's lease file does not exist yet: there is nothing to record.
    expect(await readdir(path.join(networks, 'office'))).toEqual([]);
  });

  it("warns, and records the rest, when hostapd's control interface cannot be reached", () => {
    const warnings = recorded.stderr.split('\n').filter((line) => line !== '');
    expect(warnings).toEqual([
      expect.stringMatching(/^warning: lab\/wifi: hostapd's STATUS is not recorded: hostapd_cli is not installed/),
      expect.stringMatching(/^warning: lab\/wifi: hostapd's GET_CONFIG is not recorded: hostapd_cli is not installed/),
    ]);
  });

  /** The answers of the emulated recording and of the live device. */
  async function both(endpoint: string): Promise<[unknown, unknown]> {
    const [fromRecording, fromDevice] = await Promise.all(
      [emulated, live].map(async (server) => {
        const res = await fetch(`${server.url}/api/v1/chutes/${endpoint}`);
        return { status: res.status, body: await res.json() };
      }),
    );
    return [fromRecording, fromDevice];
  }

  for (const endpoint of [
    'lab/networks',
    'lab/networks/wifi',
    'lab/networks/wifi/stations',
    `lab/networks/wifi/stations/${STATION_MACS[1]}`,
    'lab/networks/wifi/clients',
    'lab/networks/office/leases',
  ]) {
    it(`GET /api/v1/chutes/${endpoint} answers the same`, async () => {
      const [fromRecording, fromDevice] = await both(endpoint);
      expect(fromRecording).toEqual(fromDevice);
      expect(fromRecording).toMatchObject({ status: 200 });
    });
  }

  it('GET /api/v1/chutes/lab/networks/wifi/leases answers the same leases, expiries moved by the seconds from the recording to the emulator start', async () => {
    type Leases = { status: number; body: { expires: string }[] };
    const [fromRecording, fromDevice] = (await both('lab/networks/wifi/leases')) as [Leases, Leases];
    const expiries = (answer: Leases) => answer.body.map((lease) => Number(lease.expires));
    const withoutExpiry = (answer: Leases) => ({ ...answer, body: answer.body.map((lease) => ({ ...lease, expires: lease.expires === '0' ? '0' : 'moved' })) });
    expect(withoutExpiry(fromRecording)).toEqual(withoutExpiry(fromDevice));
    expect(fromRecording.body).toHaveLength(2);
    // The recording's time is btime (whole seconds, cut) + uptime: up to a second before the real one.
    const shift = expiries(fromRecording)[0]! - expiries(fromDevice)[0]!;
    expect(shift).toBeGreaterThanOrEqual(0);
    expect(shift).toBeLessThanOrEqual(Math.round(emulatorStarted - recordStarted + 1));
    expect(expiries(fromRecording)[1]).toBe(0);
  });
});

const unavailable = dockerUnavailableReason();
const noEngine = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_DOCKER;
if (noEngine) console.warn(`test/record.test.ts (chute logs) skipped: ${unavailable}; set CHUTEBOX_REQUIRE_DOCKER=1 to make this a failure`);

describe.skipIf(noEngine)(`chutebox record of a chute's log, then emulate the recording${noEngine ? ` (skipped: ${unavailable})` : ''}`, () => {
  /** What chute `talker` runs: a line on each stream, then `line <n>` every second until it is stopped. */
  const TALKER = 'trap "exit 0" TERM; echo "talker up"; echo "talker warns" >&2; n=0; while :; do n=$((n+1)); echo "line $n"; sleep 1 & wait $!; done';
  let engine: Dockerd | undefined;
  let out: string;
  let recorded: ReturnType<typeof chutebox>;

  afterAll(async () => {
    await engine?.stop();
  });

  beforeAll(async () => {
    engine = await startDockerd();
    const image = await engine.importBusybox('chutebox-test', 'talker', { cmd: ['sh', '-c', TALKER] });
    const state = path.join(tmp, 'talker-state');
    await installChute(state, 'talker', image, {}, { state: 'running' });
    const container = await engine.docker.createContainer({
      name: 'chute-talker',
      Image: image,
      Labels: { [CHUTE_LABEL]: 'talker' },
      HostConfig: { NetworkMode: 'none' },
    });
    await container.start();
    const deadline = Date.now() + 20_000;
    while (!(await container.logs({ stdout: true, stderr: true })).toString().includes('line 4')) {
      if (Date.now() > deadline) throw new Error('chute talker printed no fourth line');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    out = path.join(tmp, 'with-logs');
    recorded = chutebox(['record', '--out', out], { ...env, CHUTEBOX_STATE_DIR: state, CHUTEBOX_DOCKER_SOCKET: engine.socket });
    expect(recorded.status, recorded.stderr).toBe(0);
  });

  it("writes the chute's lines up to the recording's time into chutes/<chute>/logs, one JSON line each, in the order of their times", async () => {
    expect(recorded.stderr).toBe('');
    const lines = parseLogFile(await readFile(path.join(out, 'chutes', 'talker', 'logs'), 'utf8'), 'logs');
    expect(lines.filter((line) => line.stream === 'stderr').map((line) => line.message)).toEqual(['talker warns']);
    expect(
      lines
        .filter((line) => line.stream === 'stdout')
        .map((line) => line.message)
        .slice(0, 3),
    ).toEqual(['talker up', 'line 1', 'line 2']);
    expect(lines.map((line) => nanoTime(line.time))).toEqual(lines.map((line) => nanoTime(line.time)).sort());
    // The recording's time is btime + uptime of its proc/stat and proc/uptime: no line of the scenario comes after it.
    const recordedAt = await deviceTime({ readFile: (file) => readFile(path.join(out, file), 'utf8') });
    expect(Math.max(...lines.map((line) => Date.parse(line.time)))).toBeLessThanOrEqual(recordedAt!);
  });

  it('GET /api/v1/chutes/<chute>/logs on the recording answers the recorded lines, moved by the whole seconds from the recording to the emulator start', async () => {
    const lines = parseLogFile(await readFile(path.join(out, 'chutes', 'talker', 'logs'), 'utf8'), 'logs');
    const emulated = await start(['emulate', '--scenario', out, '--no-auth', '--port', '0'], env);
    const res = await fetch(`${emulated.url}/api/v1/chutes/talker/logs`);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const served = (await res.text())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as LogEntry);
    expect(served.map(({ stream, message }) => ({ stream, message }))).toEqual(lines.map(({ stream, message }) => ({ stream, message })));
    const moved = served.map((line, i) => Date.parse(line.time) - Date.parse(lines[i]!.time));
    expect(new Set(moved).size).toBe(1);
    expect(moved[0]! % 1000).toBe(0);
    expect(moved[0]).toBeGreaterThanOrEqual(0);
    expect(served.map((line) => line.time.slice(19))).toEqual(lines.map((line) => line.time.slice(19)));
  });
});

describe('chutebox record --out DIR', () => {
  it('refuses a folder that is not empty, and replaces it with --force', async () => {
    const dir = path.join(tmp, 'taken');
    await mkdir(dir);
    await writeFile(path.join(dir, 'notes.txt'), 'keep me\n');
    const refused = chutebox(['record', '--out', dir]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`${dir} is not empty; give --force to replace it`);
    expect(await readdir(dir)).toEqual(['notes.txt']);

    const forced = chutebox(['record', '--out', dir, '--force']);
    expect(forced.status).toBe(0);
    expect(await readdir(dir)).toEqual(expect.arrayContaining(['device.yaml', 'proc']));
    expect(await readdir(dir)).not.toContain('notes.txt');
    expect((await readdir(tmp)).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('fails with a usage error without --out', () => {
    const result = chutebox(['record']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--out DIR is required');
  });
});
