import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp-dir.ts';
import type { FunctionInput } from '../../functions/core/handler.ts';
import { handle as newConfig } from '../../functions/config/new-config.get.ts';
import { handle as environment } from '../../functions/info/environment.get.ts';
import { handle as features } from '../../functions/info/features.get.ts';
import { handle as hardware } from '../../functions/info/hardware.get.ts';
import { handle as software } from '../../functions/info/software.get.ts';
import { handle as telemetry } from '../../functions/info/telemetry.get.ts';
import { loadScenario } from '../../emulator/scenario/device.ts';
import { formatLogFile, NETWORK_FILES } from '../scenario/format.ts';
import type { ChuteLogEntry, Device, NetworkHost, NetworkTarget, StoredChute } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { routerHardware } from '../../test/support/config-devices.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { callFunction } from '../../test/support/call-function.ts';
import { NO_WIFI_STACK, WIRED_STATION } from '../../test/support/chute-devices.ts';
import { rawFixture } from '../../test/support/info-devices.ts';
import * as stations from '../../functions/networks/stations.get.ts';
import { boundLogs, compareChutes, readChutes, RECORDED_LOG_BYTES, redactChutes } from './chutes.ts';
import { recordingDevice, trimNetInterfaces, type Recording } from './recording-device.ts';
import { writeScenario } from './write-scenario.ts';

const INPUT: FunctionInput = { params: {}, query: {}, headers: {}, body: undefined, text: '' };
const UNAME = { sysname: 'Linux', release: '6.6.73', version: '#0 SMP', machine: 'aarch64' };

const { folder } = useTempDir('chutebox-record-');

function recording(parts: Partial<Recording>): Recording {
  return {
    files: new Map(),
    dirs: new Map(),
    links: new Map(),
    statfs: new Map(),
    uname: UNAME,
    programs: undefined,
    containers: undefined,
    stats: new Map(),
    chutes: new Map(),
    networks: new Map(),
    logs: new Map(),
    ...parts,
  };
}

describe('recordingDevice', () => {
  it('logs each question with its answer and asks the device only once', async () => {
    let reads = 0;
    const inner = memoryDevice({ files: { '/proc/uptime': '10.00 20.00\n' } });
    const { device, recording: log } = recordingDevice({ ...inner, readFile: (p) => (reads++, inner.readFile(p)) });
    expect(await device.readFile('/proc/uptime')).toBe('10.00 20.00\n');
    expect(await device.readFile('/proc/uptime')).toBe('10.00 20.00\n');
    expect(await device.readFile('/proc/missing')).toBeNull();
    expect(reads).toBe(2);
    expect([...log.files]).toEqual([['/proc/uptime', '10.00 20.00\n']]);
    expect(await device.containers()).toBeNull();
    expect(log.containers).toBeNull();
  });

  it('logs the container list and each stats answer by container id', async () => {
    const web = { Id: 'abc123', State: 'running', Labels: { 'io.chutebox.chute': 'web' } };
    const { device, recording: log } = recordingDevice(memoryDevice({ containers: [web], stats: { abc123: { pids_stats: { current: 2 } } } }));
    expect(await device.containers()).toEqual([web]);
    expect(await device.containerStats('abc123')).toEqual({ pids_stats: { current: 2 } });
    expect(await device.containerStats('gone')).toBeNull();
    expect(log.containers).toEqual([web]);
    expect([...log.stats]).toEqual([
      ['abc123', { pids_stats: { current: 2 } }],
      ['gone', null],
    ]);
  });

  it('logs the programs answer, asking the device once', async () => {
    let asks = 0;
    const inner = memoryDevice({ programs: ['ip', 'dnsmasq'] });
    const { device, recording: log } = recordingDevice({ ...inner, programs: () => (asks++, inner.programs()) });
    expect(log.programs).toBeUndefined();
    expect(await device.programs()).toEqual(['ip', 'dnsmasq']);
    expect(await device.programs()).toEqual(['ip', 'dnsmasq']);
    expect(asks).toBe(1);
    expect(log.programs).toEqual(['ip', 'dnsmasq']);
  });
});

describe('writeScenario', () => {
  it('lays out links inside linked folders as sysfs does, shortest path first', async () => {
    const dir = await folder('links');
    const pci = '/sys/devices/platform/soc/1b500000.pci/pci0000:00/0000:00:00.0/0000:01:00.0';
    await writeScenario(
      recording({
        files: new Map([
          ['/sys/class/ieee80211/phy0/macaddress', '04:f0:21:aa:bb:01\n'],
          [`${pci}/vendor`, '0x168c\n'],
        ]),
        links: new Map<string, string | null>([
          ['/sys/class/ieee80211/phy0/device', pci],
          ['/sys/class/ieee80211/phy0', `${pci}/ieee80211/phy0`],
          [`${pci}/subsystem`, '/sys/bus/pci'],
          ['/sys/class/ieee80211/phy9', null],
        ]),
        dirs: new Map([['/sys/class/ieee80211', ['phy0']]]),
      }),
      dir,
      'a test recording',
    );
    expect(await readlink(path.join(dir, 'sys/class/ieee80211/phy0'))).toBe(
      `../../devices/platform/soc/1b500000.pci/pci0000:00/0000:00:00.0/0000:01:00.0/ieee80211/phy0`,
    );
    expect(await readlink(path.join(dir, `${pci}/ieee80211/phy0/device`))).toBe('../..');
    expect(await readlink(path.join(dir, `${pci}/subsystem`))).toBe('../../../../../../../bus/pci');
    expect(await readFile(path.join(dir, `${pci}/ieee80211/phy0/macaddress`), 'utf8')).toBe('04:f0:21:aa:bb:01\n');
    expect((await lstat(path.join(dir, 'sys/bus/pci'))).isDirectory()).toBe(true);

    const { device } = await loadScenario(dir);
    expect(await device.readDir('/sys/class/ieee80211')).toEqual(['phy0']);
    expect(await device.realPath('/sys/class/ieee80211/phy0/device')).toBe(pci);
    expect(await device.realPath(`${pci}/subsystem`)).toBe('/sys/bus/pci');
    expect(await device.realPath('/sys/class/ieee80211/phy9')).toBeNull();
    expect(await device.readFile('/sys/class/ieee80211/phy0/device/vendor')).toBe('0x168c\n');
  });

  it('writes a file read through a link where the link points', async () => {
    const dir = await folder('file-link');
    await writeScenario(
      recording({
        files: new Map([['/etc/os-release', 'NAME="OpenWrt"\n']]),
        links: new Map([['/etc/os-release', '/usr/lib/os-release']]),
      }),
      dir,
      'a test recording',
    );
    expect(await readlink(path.join(dir, 'etc/os-release'))).toBe('../usr/lib/os-release');
    expect(await readFile(path.join(dir, 'usr/lib/os-release'), 'utf8')).toBe('NAME="OpenWrt"\n');
  });

  it('puts uname, readable statfs answers and the description in device.yaml, and containers in engine/', async () => {
    const dir = await folder('yaml');
    const stats = { type: 61267, bsize: 4096, blocks: 10, bfree: 5, bavail: 4, files: 100, ffree: 90 };
    const container = { Id: 'abc123', Labels: { 'io.chutebox.chute': 'web' }, State: 'running' };
    await writeScenario(
      recording({
        statfs: new Map([
          ['/', stats],
          ['/proc', null],
        ]),
        containers: [container],
        stats: new Map([
          ['abc123', { memory_stats: { usage: 1 } }],
          ['def456', null],
        ]),
      }),
      dir,
      'a test recording',
    );
    const { device, description } = await loadScenario(dir);
    expect(description).toBe('a test recording');
    expect(await device.uname()).toEqual(UNAME);
    expect(await device.statfs('/')).toEqual(stats);
    expect(await device.statfs('/proc')).toBeNull();
    expect(await device.containers()).toEqual([container]);
    expect(await device.containerStats('abc123')).toEqual({ memory_stats: { usage: 1 } });
    expect(await device.containerStats('def456')).toBeNull();
    expect(JSON.parse(await readFile(path.join(dir, 'engine/containers.json'), 'utf8'))).toEqual([container]);
  });

  it('puts the programs answer in device.yaml, which the scenario answers back', async () => {
    const dir = await folder('programs');
    await writeScenario(recording({ programs: ['ip', 'hostapd', 'dnsmasq', 'nsenter', 'nft'] }), dir, 'a test recording');
    expect(await readFile(path.join(dir, 'device.yaml'), 'utf8')).toContain('programs:\n  - ip\n  - hostapd\n');
    expect(await (await loadScenario(dir)).device.programs()).toEqual(['ip', 'hostapd', 'dnsmasq', 'nsenter', 'nft']);
  });

  it('writes no programs when they were not asked, and the scenario has none', async () => {
    const dir = await folder('no-programs');
    await writeScenario(recording({}), dir, 'a test recording');
    expect(await readFile(path.join(dir, 'device.yaml'), 'utf8')).not.toMatch(/^programs:/m);
    expect(await (await loadScenario(dir)).device.programs()).toEqual([]);
  });

  it('refuses a program that device.yaml cannot list', async () => {
    await expect(writeScenario(recording({ programs: ['ip', 'bash'] }), await folder('bad-program'), 'x')).rejects.toThrow(/"bash" is not one/);
  });

  it('refuses a stats answer whose container id cannot name a file', async () => {
    const bad = recording({ containers: [], stats: new Map([['../escape', { pids_stats: {} }]]) });
    await expect(writeScenario(bad, await folder('bad-stats-id'), 'x')).rejects.toThrow(/"\.\.\/escape" cannot name a stats file/);
  });

  it('writes no engine when the device has none', async () => {
    const dir = await folder('no-engine');
    await writeScenario(recording({ containers: null }), dir, 'a test recording');
    expect(await (await loadScenario(dir)).device.containers()).toBeNull();
  });

  it('refuses a recording without uname', async () => {
    await expect(writeScenario(recording({ uname: undefined }), await folder('no-uname'), 'x')).rejects.toThrow(/no uname answer/);
  });

  it('records the default scenario so that every info handler answers the same on the copy', async () => {
    const handlers = { environment, hardware, software, features, telemetry };
    // Both as recorded: the uptime and boot time would otherwise follow each one's start.
    const { device, recording: log } = recordingDevice((await loadScenario('default', undefined, { asRecorded: true })).device);
    const answers = await Promise.all(Object.values(handlers).map((handle) => handle(INPUT, device)));
    const dir = await folder('copy-of-default');
    await writeScenario(log, dir, 'a copy of default');
    const copy = (await loadScenario(dir, undefined, { asRecorded: true })).device;
    const again = await Promise.all(Object.values(handlers).map((handle) => handle(INPUT, copy)));
    const withoutTime = (values: unknown[]) => values.map((v) => (v && typeof v === 'object' && 'time' in v ? { ...v, time: 0 } : v));
    expect(withoutTime(again)).toEqual(withoutTime(answers));
    expect((answers[1] as { wifi: unknown[] }).wifi).toHaveLength(2);
    expect([...log.stats.keys()].sort()).toEqual([
      '7d41e9c2b85f03a6e1d4c7b9a20f58e36c1b9d4a7e2f05c83b6a91d0e4f7c2a5',
      'cbafb046481ff1fa349d0b39af2e2b07c90cd96610dcf03a85b9aac2ec822186',
    ]);
    expect((answers[4] as { chutes: { pids: number }[] }).chutes[0]!.pids).toBeGreaterThan(0);
    expect(answers[3]).toEqual(['hostapd-control', 'docker', 'chute-networks', 'audio']);
  });

  it('records the network interfaces so that GET /api/v1/config/new-config answers the same on the copy', async () => {
    const { device, recording: log } = recordingDevice(
      memoryDevice({ ...routerHardware, files: { ...routerHardware.files, '/sys/class/net/eth0/mtu': '1500\n' } }),
    );
    const answer = await newConfig(INPUT, device);
    trimNetInterfaces(log);
    const dir = await folder('net-interfaces');
    await writeScenario({ ...log, uname: UNAME }, dir, 'network interfaces');
    expect(await newConfig(INPUT, (await loadScenario(dir)).device)).toEqual(answer);
    expect(JSON.parse((answer as { body: string }).body)).toMatchObject({ wan: { interface: 'eth0' }, lan: { interfaces: ['eth1', 'eth2', 'eth10'] } });
    // Of each interface, only what tells an Ethernet port from the rest: its device link, or the Wi-Fi entries.
    expect(await readdir(path.join(dir, 'sys/class/net'))).toEqual(['br-lan', 'eth0', 'eth1', 'eth10', 'eth2', 'lo', 'wlan0']);
    expect(await readdir(path.join(dir, 'sys/class/net/eth0'))).toEqual(['device']);
    expect(await readlink(path.join(dir, 'sys/class/net/eth0/device'))).toBe('../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0');
    expect(await readdir(path.join(dir, 'sys/class/net/wlan0'))).toEqual(['phy80211', 'wireless']);
    expect(await readdir(path.join(dir, 'sys/class/net/lo'))).toEqual([]);
    expect(await readdir(path.join(dir, 'sys/class/net/br-lan'))).toEqual([]);
  });

  it('records the default scenario so that GET /api/v1/config/new-config answers eth0 as WAN and eth1, eth2 as LAN on the copy', async () => {
    const { device, recording: log } = recordingDevice((await loadScenario('default')).device);
    const answer = await newConfig(INPUT, device);
    trimNetInterfaces(log);
    const dir = await folder('net-of-default');
    await writeScenario({ ...log, uname: UNAME }, dir, 'the network interfaces of default');
    expect(await newConfig(INPUT, (await loadScenario(dir)).device)).toEqual(answer);
    expect(JSON.parse((answer as { body: string }).body)).toMatchObject({
      wan: { interface: 'eth0', proto: 'dhcp' },
      lan: { interfaces: ['eth1', 'eth2'] },
      wifi: [{ id: 'pci-wifi-0' }, { id: 'pci-wifi-1' }],
    });
  });

  it("records the default scenario's chutes so that the copy reads back the same, its raw files byte for byte", async () => {
    // As recorded, so that the lease files are those of the folder.
    const original = await loadScenario('default', undefined, { asRecorded: true });
    const { device, recording: log } = recordingDevice(original.device);
    expect(await readChutes(device)).toEqual([]);
    redactChutes(log);
    const dir = await folder('chutes-of-default');
    await writeScenario({ ...log, uname: UNAME }, dir, 'a copy of the chutes of default');
    // As chutebox record reads it back: the recording's clock files are in the copy (its logs end at their time).
    const copy = (await loadScenario(dir, undefined, { asRecorded: true })).device;
    expect(await compareChutes(log, copy)).toEqual([]);
    expect(await copy.chuteNames()).toEqual(['hello-world', 'hotspot']);
    // The access points and the VLAN have their recordings; the monitor interface has none.
    const networks = path.join(dir, 'chutes/hotspot/networks');
    expect(await readdir(networks)).toEqual(['guest', 'staff']);
    expect(await readdir(path.join(networks, 'staff'))).toEqual([NETWORK_FILES.leases]);
    for (const [chute, network] of [
      ['hello-world', 'wifi'],
      ['hotspot', 'guest'],
    ] as const) {
      // Where iw answered, hostapd's all_sta is neither read nor written.
      const recorded = Object.values(NETWORK_FILES).filter((file) => file !== NETWORK_FILES.hostapdStations);
      expect(await readdir(path.join(dir, `chutes/${chute}/networks/${network}`))).toEqual([...recorded].sort());
      for (const file of recorded) {
        const at = `chutes/${chute}/networks/${network}/${file}`;
        expect(await readFile(path.join(dir, at), 'utf8'), at).toBe(await readFile(path.join(original.dir, at), 'utf8'));
      }
    }
    // Each chute's log up to the recording's time (09:59:59.67), as the scenario has it.
    const hotspot = (await readFile(path.join(dir, 'chutes/hotspot/logs'), 'utf8')).split('\n').filter((line) => line !== '');
    const original_ = (await readFile(path.join(original.dir, 'chutes/hotspot/logs'), 'utf8')).split('\n').filter((line) => line !== '');
    expect(hotspot).toEqual(original_.slice(0, 11));
    expect(JSON.parse(hotspot.at(-1)!).time).toBe('2025-11-21T09:55:00.000612489Z');
    // Secrets stay out: the Wi-Fi key is redacted, the rest of the configuration is kept.
    const config = (await copy.chute('hello-world'))!.config as { net: { wifi: Record<string, unknown> } };
    expect(config.net.wifi).toMatchObject({ type: 'wifi', ssid: 'hello-world', key: '[redacted]', dhcp: { start: 100, limit: 50, lease: '12h' } });
    expect(await readFile(path.join(dir, 'chutes/hello-world/service.yaml'), 'utf8')).not.toContain('chutebox-demo');
  });
});

describe('recordingDevice: chutes and their networks', () => {
  const TARGET: NetworkTarget = { chute: 'hello-world', network: 'wifi', hostInterface: 'phy1-ap1', hostapdControl: null, leaseFile: null };

  /** The default scenario's device, counting what its networks are asked. */
  async function counted(): Promise<{ inner: Device; asked: string[] }> {
    const { device } = await loadScenario('default');
    const asked: string[] = [];
    const inner: Device = {
      ...device,
      network(target) {
        const host = device.network(target);
        const count =
          <A extends unknown[], R>(name: string, call: (...args: A) => Promise<R>) =>
          (...args: A) => (asked.push(`${name} ${args.flat().join(' ')}`.trim()), call(...args));
        return {
          stationDump: count('stationDump', () => host.stationDump()),
          stationGet: count('stationGet', (mac: string) => host.stationGet(mac)),
          stationDel: count('stationDel', (mac: string) => host.stationDel(mac)),
          hostapdStations: count('hostapdStations', () => host.hostapdStations()),
          leases: count('leases', () => host.leases()),
          hostapd: count('hostapd', (command: string[]) => host.hostapd(command)),
          hostapdEvents: (onEvent: (text: string) => void, onEnd: (reason: string) => void) => host.hostapdEvents(onEvent, onEnd),
        } satisfies NetworkHost;
      },
    };
    return { inner, asked };
  }

  it('logs the reads of a network once each, and passes changes and station reads through unlogged', async () => {
    const { inner, asked } = await counted();
    const { device, recording: log } = recordingDevice(inner);
    const first = await device.network(TARGET).stationDump();
    expect(await device.network(TARGET).stationDump()).toBe(first);
    expect(await device.network(TARGET).hostapd(['STATUS'])).toContain('ssid[1]=hello-world');
    expect(await device.network(TARGET).hostapd(['SET', 'ssid', 'changed'])).toBe('OK\n');
    // The snapshot stays what was first read, on the device the SSID changed.
    expect(await device.network(TARGET).hostapd(['STATUS'])).toContain('ssid[1]=hello-world');
    expect(await device.network(TARGET).hostapd(['GET_CONFIG'])).toContain('ssid=changed');
    expect(await device.network(TARGET).stationGet('24:0a:c4:11:8b:3e')).toContain('Station 24:0a:c4:11:8b:3e');
    expect(await device.network({ ...TARGET, chute: 'hotspot', network: 'survey' }).leases()).toBeNull();
    expect(asked).toEqual(['stationDump', 'hostapd STATUS', 'hostapd SET ssid changed', 'hostapd GET_CONFIG', 'stationGet 24:0a:c4:11:8b:3e', 'leases']);
    expect([...log.networks].map(([chute, networks]) => [chute, Object.fromEntries(networks)])).toEqual([
      [
        'hello-world',
        { wifi: { stationDump: first, hostapdStatus: expect.stringContaining('ssid[1]=hello-world'), hostapdConfig: expect.stringContaining('ssid=changed') } },
      ],
      ['hotspot', { survey: { leases: null } }],
    ]);
  });

  it('logs each chute read, and no answer of a network read that failed', async () => {
    const { device: scenario } = await loadScenario('default');
    const failing: Device = {
      ...scenario,
      network: (target) => ({
        ...scenario.network(target),
        hostapd: async () => {
          throw new HttpProblem(503, 'hostapd control socket /var/run/hostapd/phy1-ap1 does not exist');
        },
      }),
    };
    const { device, recording: log } = recordingDevice(failing);
    expect(await readChutes(device)).toEqual([
      "hello-world/wifi: hostapd's STATUS is not recorded: hostapd control socket /var/run/hostapd/phy1-ap1 does not exist",
      "hello-world/wifi: hostapd's GET_CONFIG is not recorded: hostapd control socket /var/run/hostapd/phy1-ap1 does not exist",
      "hotspot/guest: hostapd's STATUS is not recorded: hostapd control socket /var/run/hostapd/phy1-ap1 does not exist",
      "hotspot/guest: hostapd's GET_CONFIG is not recorded: hostapd control socket /var/run/hostapd/phy1-ap1 does not exist",
    ]);
    expect([...log.chutes.keys()]).toEqual(['hello-world', 'hotspot']);
    expect(Object.keys(log.networks.get('hello-world')!.get('wifi')!)).toEqual(['stationDump', 'leases']);
    expect(Object.keys(log.networks.get('hotspot')!.get('staff')!)).toEqual(['leases']);
    expect(log.networks.get('hotspot')!.has('survey')).toBe(false);
  });

  it("records hostapd's all_sta where iw cannot answer, and the scenario written answers the stations as the device did", async () => {
    const { device: scenario } = await loadScenario('default', undefined, { asRecorded: true });
    const allSta = rawFixture('hostapd_all_sta/chutebox_lab_wired_8021x_md5_authorized.txt');
    // A lab: no nl80211, and hostapd's wired driver knows one station on every access point.
    const lab: Device = {
      ...scenario,
      network: (target) => ({ ...scenario.network(target), stationDump: () => Promise.reject(NO_WIFI_STACK), hostapdStations: async () => allSta }),
    };
    const { device, recording: log } = recordingDevice(lab);
    expect(await readChutes(device)).toEqual([]);
    expect(Object.keys(log.networks.get('hello-world')!.get('wifi')!)).toEqual(['hostapdStations', 'leases', 'hostapdStatus', 'hostapdConfig']);
    const dir = await folder('chutes-of-a-lab');
    await writeScenario({ ...log, uname: UNAME }, dir, 'the chutes of default in a lab');
    expect(await readdir(path.join(dir, 'chutes/hello-world/networks/wifi'))).toContain(NETWORK_FILES.hostapdStations);
    const copy = (await loadScenario(dir, undefined, { asRecorded: true })).device;
    expect(await compareChutes(log, copy)).toEqual([]);
    const params = { chute: 'hello-world', network: 'wifi' };
    const answer = await callFunction<{ mac_addr: string }[]>(stations, copy, params);
    expect(answer).toEqual(await callFunction(stations, lab, params));
    expect(answer.body.map((station) => station.mac_addr)).toEqual([WIRED_STATION]);
  });

  it('does not turn other failures into warnings', async () => {
    const { device: scenario } = await loadScenario('default');
    const broken: Device = { ...scenario, network: (target) => ({ ...scenario.network(target), leases: () => Promise.reject(new TypeError('a bug')) }) };
    await expect(readChutes(recordingDevice(broken).device)).rejects.toThrow('a bug');
  });
});

describe('the chute logs of a recording', () => {
  const line = (second: number, message: string): ChuteLogEntry => ({
    time: new Date(Date.UTC(2026, 10, 21, 12, 0, second)).toISOString(),
    service: 'main',
    stream: 'stdout',
    message,
  });
  const chute = (name: string): StoredChute => ({ name, record: { name, version: '1', state: 'running' }, config: {}, cache: {} });

  it('keep the newest lines whose log file fits in RECORDED_LOG_BYTES, in the order of their times, and none of an empty log', async () => {
    const long = 'x'.repeat(1000);
    const many = Array.from({ length: 600 }, (_, i) => line(i % 60, `${i} ${long}`));
    const log = recording({
      chutes: new Map([
        ['lab', chute('lab')],
        ['quiet', chute('quiet')],
      ]),
      logs: new Map([
        ['lab', many],
        ['quiet', []],
      ]),
    });
    boundLogs(log);
    const kept = log.logs.get('lab')!;
    expect(Buffer.byteLength(formatLogFile(kept, 'main'))).toBeLessThanOrEqual(RECORDED_LOG_BYTES);
    expect(Buffer.byteLength(formatLogFile(kept, 'main')) + 1100).toBeGreaterThan(RECORDED_LOG_BYTES);
    const sorted = [...many].sort((a, b) => a.time.localeCompare(b.time));
    expect(kept).toEqual(sorted.slice(sorted.length - kept.length));
    expect(log.logs.has('quiet')).toBe(false);
    const dir = await folder('chute-logs');
    await writeScenario(log, dir, 'chute logs');
    expect(await readdir(path.join(dir, 'chutes/lab'))).toContain('logs');
    expect(await readdir(path.join(dir, 'chutes/quiet'))).not.toContain('logs');
    const { device } = await loadScenario(dir, undefined, { asRecorded: true });
    expect(await compareChutes(log, device)).toEqual([]);
  });
});

describe('writeScenario: chutes', () => {
  const chute = (name: string, net: Record<string, unknown>): StoredChute => ({
    name,
    record: { name, version: 1, state: 'running', environment: { API_TOKEN: 'x1', MODE: 'demo' }, allocation: { cpu_shares: 1024 }, resources: null },
    config: { environment: { DB_PASSWORD: 'pw', LEVEL: 3 }, net },
    cache: {},
  });

  it('writes chute.yaml and service.yaml, no cache.yaml for an empty cache, secrets redacted', async () => {
    const dir = await folder('chute-docs');
    const log = recording({
      chutes: new Map([
        ['lab', chute('lab', { wifi: { type: 'wifi', intfName: 'wlan0', key: 'passphrase', options: { acct_secret: 'radius', hidden: true } } })],
        ['gone', null],
      ]),
    });
    redactChutes(log);
    await writeScenario(log, dir, 'chutes');
    expect(await readdir(path.join(dir, 'chutes'))).toEqual(['lab']);
    expect(await readdir(path.join(dir, 'chutes/lab'))).toEqual(['chute.yaml', 'service.yaml']);
    const { device } = await loadScenario(dir);
    expect(await device.chute('lab')).toEqual({
      name: 'lab',
      record: {
        name: 'lab',
        version: 1,
        state: 'running',
        environment: { API_TOKEN: '[redacted]', MODE: 'demo' },
        allocation: { cpu_shares: 1024 },
        resources: null,
      },
      config: {
        environment: { DB_PASSWORD: '[redacted]', LEVEL: 3 },
        net: { wifi: { type: 'wifi', intfName: 'wlan0', key: '[redacted]', options: { acct_secret: '[redacted]', hidden: true } } },
      },
      cache: {},
    });
  });

  it('refuses a network name that cannot name a folder', async () => {
    const log = recording({ chutes: new Map([['lab', chute('lab', {})]]), networks: new Map([['lab', new Map([['../x', { leases: 'x' }]])]]) });
    await expect(writeScenario(log, await folder('bad-network'), 'x')).rejects.toThrow(/the network name "\.\.\/x" cannot name a folder/);
  });
});
