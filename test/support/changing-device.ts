import type { Account, Device, FsStats } from '../../functions/core/device/index.ts';
import { CHUTE_LABEL } from '../../functions/core/device/names.ts';
import { PASSWD } from './account-devices.ts';
import { AP_CONFIG, AP_LEASES, accessPoint, chuteDeviceSpec, labAccessPoint, STATIONS } from './chute-devices.ts';
import { drivers, EDITED_HOST_CONFIG, netInterfaces } from './config-devices.ts';
import { combine, pciRouter, radios } from './info-devices.ts';
import { memoryDevice, memoryNetworks, type MemoryDevice, type MemoryDeviceSpec, type MemoryNetwork } from './memory-device.ts';
import { CREDENTIALS } from './provisioning-devices.ts';
import { nullSinkPactl } from './pulseaudio.ts';
import { sshKey } from './ssh-keys.ts';

/*
 * A memory device whose sources change between requests, in every way a device may change them: new
 * raw text, the same list or object changed in place, an object whose getters answer differently, a
 * date nested in stored data, the clock. For the test that every GET answer follows the device
 * (test/get-answers-follow-the-device.test.ts).
 */

/** One change of the device: what changes, as a user would say it, and how the device makes it. */
export interface DeviceChange {
  what: string;
  make(): Promise<void>;
}

export interface ChangingDevice {
  device: Device;
  /** Each change the device can make, in a readable order; a change made again moves on (or back). */
  changes: readonly DeviceChange[];
  /** Path parameters that name what the device has: its chute, network, station, change, user. */
  params: Readonly<Record<string, string>>;
}

/**
 * A router with two radios, the chutes of `chuteDevice` (`hello` runs in a container), the accounts
 * of `PASSWD`, provisioning without telemetry, and the changes it makes (`changes`).
 *
 * @example
 * const { device, changes } = changingDevice();
 * await changes[0]!.make(); // the clock moves on a second
 */
export function changingDevice(): ChangingDevice {
  const usage: ContainerUse = { cpuNs: 152_000_000_000, memory: 52_428_800 };
  const spec = startingSpec(usage);
  const memory = memoryDevice(spec);
  let networks = memoryNetworks(spec.networks);
  /** Changes the access point's recordings: a new network host answers them (a memory network reads each once). */
  const changeWlan = (change: (wlan: MemoryNetwork) => void) => {
    change(spec.networks!['hello/wlan']!);
    networks = memoryNetworks(spec.networks);
  };
  const device: Device = { ...memory, network: (target) => networks.network(target) };
  return {
    device,
    changes: [...sourceChanges(spec), ...chuteChanges(spec, usage), ...networkChanges(changeWlan), ...serviceChanges(memory)],
    params: { chute: 'hello', network: 'wlan', mac: STATIONS[0], id: '1', user: 'paradrop' },
  };
}

/** The id of the chute `hello`'s container, as the engine gives one. */
const HELLO_CONTAINER = '5f1c2d3e4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff';

/** What the container engine counts of `hello`'s container: CPU time (ns) and memory in use (bytes). */
interface ContainerUse {
  cpuNs: number;
  memory: number;
}

/** What the device starts with, `hello`'s container using `usage`: new objects, which its changes change in place. */
function startingSpec(usage: ContainerUse): MemoryDeviceSpec {
  const hardware = structuredClone(
    combine(pciRouter, netInterfaces(['eth0', 'eth1']), drivers({ 'pci/0000:0a:00.0': 'ath9k', 'pci/0000:09:00.0': 'ath10k_pci' }), {
      files: { '/proc/self/environ': 'PATH=/usr/sbin:/usr/bin\0HOME=/root\0' },
    }),
  );
  const spec: MemoryDeviceSpec = {
    ...hardware,
    ...chuteDeviceSpec(),
    now: Date.UTC(2026, 10, 21, 12, 0, 0),
    programs: ['ip', 'iw', 'hostapd', 'hostapd_cli', 'nsenter', 'nft'],
    containers: [
      { Id: HELLO_CONTAINER, Names: ['/chute-hello'], Image: 'chutebox/hello:1', State: 'running', Status: 'Up 2 hours', Labels: { [CHUTE_LABEL]: 'hello' } },
    ],
    stats: { [HELLO_CONTAINER]: liveStats(usage) },
    settings: { portal_server_port: 8080, state_dir: '/var/lib/chutebox' },
    accounts: { passwd: PASSWD, keys: { paradrop: `${sshKey('ed25519')}\n` } },
    provisioning: { telemetry: { enabled: false, interval: 60 }, now: () => spec.now! },
    hostConfig: { now: () => spec.now! },
    audio: nullSinkPactl(),
  };
  spec.chutes!.hello!.record!.resources = { reserved_until: new Date(spec.now!) };
  return spec;
}

/**
 * A container's stats as the engine's body, but one object whose getters answer the counters of
 * `use` as they are at the read: the device answers the same object while they move.
 */
function liveStats(use: ContainerUse): Record<string, unknown> {
  return {
    get cpu_stats() {
      return { cpu_usage: { total_usage: use.cpuNs }, system_cpu_usage: 1_726_000_000_000_000, online_cpus: 2 };
    },
    precpu_stats: { cpu_usage: { total_usage: 151_900_000_000 }, system_cpu_usage: 1_725_998_000_000_000, online_cpus: 2 },
    get memory_stats() {
      return { usage: use.memory, limit: 16_706_080_768 };
    },
    pids_stats: { current: 7 },
  };
}

/** A change made back and forth: `there` the first time, `back` the next, and so on. */
function backAndForth(what: string, there: () => unknown, back: () => unknown): DeviceChange {
  let done = false;
  return {
    what,
    async make() {
      await (done ? back() : there());
      done = !done;
    },
  };
}

/** A change that moves on each time it is made: `step` gets how many times it has been made, this time included. */
function movingOn(what: string, step: (times: number) => unknown): DeviceChange {
  let times = 0;
  return { what, make: async () => void (await step(++times)) };
}

/** Changes of the raw sources: files, listings, links, statfs, uname, programs, settings and the clock. */
function sourceChanges(spec: MemoryDeviceSpec): DeviceChange[] {
  const files = spec.files!;
  const links = spec.links!;
  const usbRadio = radios({
    phy: 'phy2',
    macAddr: '00:e0:4c:81:88:01',
    devicePath: '/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0',
    bus: 'usb',
    ids: { vendor: '0bda', device: '8179' },
  });
  const radioDriver = '/sys/bus/pci/devices/0000:0a:00.0/driver';
  return [
    movingOn('the clock moves on a second', () => (spec.now! += 1000)),
    movingOn('the kernel counters move (new text in /proc)', (times) => {
      files['/proc/uptime'] = `${86_400 + times}.73 160000.12\n`;
      files['/proc/loadavg'] = `0.${times % 10}2 0.35 0.30 2/311 40211\n`;
    }),
    movingOn("the daemon's environment changes (new text)", (times) => (files['/proc/self/environ'] = `PATH=/usr/sbin:/usr/bin\0HOME=/root\0RUN=${times}\0`)),
    movingOn('the firmware is updated (new DMI and os-release text)', (times) => {
      files['/sys/class/dmi/id/bios_version'] = `${3002 + times}\n`;
      files['/etc/os-release'] = `PRETTY_NAME="Debian GNU/Linux 12.${times} (bookworm)"\nID=debian\n`;
    }),
    movingOn('the kernel is upgraded (uname answers a new release)', (times) => (spec.uname!.release = `6.1.0-${18 + times}-amd64`)),
    backAndForth(
      'a USB radio is plugged in, then out (sysfs entries come and go)',
      () => {
        Object.assign(files, usbRadio.files);
        Object.assign(links, usbRadio.links);
      },
      () => {
        for (const path of Object.keys(usbRadio.files!)) delete files[path];
        for (const path of Object.keys(usbRadio.links!)) delete links[path];
      },
    ),
    backAndForth(
      'a radio gets another driver, then its own again (its driver link points elsewhere)',
      () => (links[radioDriver] = '/sys/bus/pci/drivers/ath10k_pci'),
      () => (links[radioDriver] = '/sys/bus/pci/drivers/ath9k'),
    ),
    backAndForth(
      'the disk fills, then is freed again (statfs answers the same object, changed in place)',
      () => freeBlocks(spec.statfs!['/']!, -1_000_000),
      () => freeBlocks(spec.statfs!['/']!, 1_000_000),
    ),
    backAndForth(
      'dnsmasq is installed, then removed (the same program list, changed in place)',
      () => (spec.programs as string[]).push('dnsmasq'),
      () => (spec.programs as string[]).pop(),
    ),
    movingOn('a setting changes', (times) => (spec.settings!.portal_server_port = 8080 + times)),
  ];
}

/** `fs` with `blocks` more free blocks (fewer when negative), changed in place. */
function freeBlocks(fs: FsStats, blocks: number): void {
  fs.bfree += blocks;
  fs.bavail += blocks;
}

/** `usage` moved `seconds` of CPU time and as many pages of memory on (back when negative). */
function use(usage: ContainerUse, seconds: number): void {
  usage.cpuNs += seconds * 1_000_000_000;
  usage.memory += seconds * 4096;
}

/** Changes of the chutes and their containers, each made in place in what the device answers. */
function chuteChanges(spec: MemoryDeviceSpec, usage: ContainerUse): DeviceChange[] {
  const container = spec.containers![0]!;
  const hello = spec.chutes!.hello!;
  const net = hello.config!.net as Record<string, Record<string, unknown>>;
  const reservedUntil = (hello.record!.resources as { reserved_until: Date }).reserved_until;
  return [
    backAndForth(
      "the chute's container stops, then runs again (the same container list, its entry changed in place)",
      () => Object.assign(container, { State: 'exited', Status: 'Exited (137) 1 second ago' }),
      () => Object.assign(container, { State: 'running', Status: 'Up 1 second' }),
    ),
    backAndForth(
      "the container's counters move, then go back (the same stats object, whose getters answer new values)",
      () => use(usage, 1),
      () => use(usage, -1),
    ),
    backAndForth(
      "the chute's version goes to 2, then back to 1 (its stored record changed in place)",
      () => (hello.record!.version = '2'),
      () => (hello.record!.version = '1'),
    ),
    backAndForth(
      "a date in the chute's record moves a minute on, then back (a Date nested in the stored record, changed in place)",
      () => reservedUntil.setTime(reservedUntil.getTime() + 60_000),
      () => reservedUntil.setTime(reservedUntil.getTime() - 60_000),
    ),
    backAndForth(
      "the chute's configuration and cache change, then change back (nested objects changed in place)",
      () => {
        Object.assign(net.wlan!, { intfName: 'wlan1', ssid: 'café 2' });
        hello.cache!.restarts = 1;
      },
      () => {
        Object.assign(net.wlan!, { intfName: 'wlan0', ssid: 'café 5G' });
        delete hello.cache!.restarts;
      },
    ),
  ];
}

/** Changes of the access point (`changeWlan` makes them), each a new recording of its tools. */
function networkChanges(changeWlan: (change: (wlan: MemoryNetwork) => void) => void): DeviceChange[] {
  const { stationDump, hostapdStatus } = accessPoint();
  const lab = labAccessPoint();
  return [
    backAndForth(
      'a station leaves, then comes back (a new iw station dump)',
      () => changeWlan((wlan) => (wlan.stationDump = stationDump!.slice(stationDump!.indexOf(`Station ${STATIONS[1]}`)))),
      () => changeWlan((wlan) => (wlan.stationDump = stationDump)),
    ),
    backAndForth(
      'iw stops answering, then answers again (meanwhile the stations come from hostapd)',
      () => changeWlan((wlan) => Object.assign(wlan, { fails: lab.fails, hostapdStations: lab.hostapdStations })),
      () =>
        changeWlan((wlan) => {
          delete wlan.fails;
          delete wlan.hostapdStations;
        }),
    ),
    movingOn('dnsmasq renews a lease (a new lease file)', (times) =>
      changeWlan((wlan) => (wlan.leases = AP_LEASES.replace('1645660000', String(1_645_660_000 + 3600 * times)))),
    ),
    movingOn('hostapd moves to another channel and SSID (new STATUS and GET_CONFIG replies)', (times) =>
      changeWlan((wlan) => {
        wlan.hostapdStatus = hostapdStatus!.replace(/^channel=\d+$/m, `channel=${[40, 44, 48, 36][times % 4]}`);
        wlan.hostapdConfig = AP_CONFIG.replace(/^ssid=.*$/m, `ssid=lab ${times}`);
      }),
    ),
  ];
}

/** `paradrop` of `PASSWD`. */
const PARADROP: Account = { name: 'paradrop', uid: 1000, gid: 1000, home: '/home/paradrop' };

/** Changes made through the device's services: changes, host configuration, provisioning, accounts. */
function serviceChanges(device: MemoryDevice): DeviceChange[] {
  return [
    movingOn('a change is submitted', () => device.submitChange({ action: 'stop', chute: 'bare' })),
    movingOn('the null sink and its monitor get a new volume, and a module is loaded', async (times) => {
      await device.audio.setVolume('sink', 'null', [times * 1000]);
      await device.audio.setVolume('source', 'null.monitor', [times * 1000]);
      await device.audio.loadModule('module-null-sink');
    }),
    backAndForth(
      'the default sink becomes the monitor, then the null sink again',
      () => device.audio.setDefault('sink', 'null.monitor'),
      () => device.audio.setDefault('sink', 'null'),
    ),
    backAndForth(
      'the host configuration is stored, then reset to the generated one',
      async () => (await device.hostConfig.perform({ action: 'update-hostconfig', config: EDITED_HOST_CONFIG }, async () => {}))(),
      () => device.hostConfig.reset(),
    ),
    backAndForth(
      'the device is provisioned, then reset',
      () => device.provisioning.provision(CREDENTIALS),
      () => device.provisioning.clear(),
    ),
    backAndForth(
      "a key is added to paradrop's authorized_keys, then removed",
      () => device.accounts.updateAuthorizedKeys(PARADROP, (text) => `${text}${sshKey('ecdsa-256')}\n`),
      () => device.accounts.updateAuthorizedKeys(PARADROP, () => `${sshKey('ed25519')}\n`),
    ),
  ];
}
