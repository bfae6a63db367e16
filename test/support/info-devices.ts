import { readFileSync } from 'node:fs';
import type { FsStats } from '../../functions/core/device/index.ts';
import { okBody, type EndpointModule } from './call-function.ts';
import { memoryDevice, type MemoryDeviceSpec } from './memory-device.ts';

/*
 * Raw sources of the devices the info handler tests run on. Files copied from real devices live in
 * fixtures/raw/ (provenance in fixtures/raw/SOURCES.tsv); the rest is written here in the kernel's
 * formats, with values of the kind such devices show.
 */

/**
 * A file of fixtures/raw/.
 *
 * @example
 * rawFixture('cpuinfo/mips_ar9330_gl_usb150_tabs.txt')
 */
export function rawFixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/raw/${name}`, import.meta.url), 'utf8');
}

/**
 * The per-field files of /sys/class/dmi/id from a dump of `f=$(cat f)` lines, as
 * fixtures/raw/dmi/nixos_… holds it. A field whose `cat` failed ("Permission denied", "Is a
 * directory") gets no file, as reading it fails on the device; an empty value gets an empty file.
 */
export function dmiFilesFromDump(dump: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const line of dump.split('\n')) {
    const equals = line.indexOf('=');
    if (equals <= 0) continue;
    const value = line.slice(equals + 1);
    if (/^cat: .*: (Permission denied|Is a directory)$/.test(value)) continue;
    files[`/sys/class/dmi/id/${line.slice(0, equals)}`] = `${value}\n`;
  }
  return files;
}

/**
 * The per-field files of /sys/class/dmi/id from a `dmidecode` "System Information" section
 * (`\tManufacturer: …`, `\tProduct Name: …`, `\tVersion: …`), as fixtures/raw/dmi/systemd… holds it.
 */
export function dmiFilesFromDmidecode(section: string): Record<string, string> {
  const fields: Record<string, string> = { Manufacturer: 'sys_vendor', 'Product Name': 'product_name', Version: 'product_version' };
  const files: Record<string, string> = {};
  for (const line of section.split('\n')) {
    const match = /^\t([^:]+): (.*)$/.exec(line);
    const field = match ? fields[match[1]!] : undefined;
    if (field) files[`/sys/class/dmi/id/${field}`] = `${match![2]}\n`;
  }
  return files;
}

/** How a radio's device hangs off its bus. */
export interface RadioSpec {
  phy: string;
  macAddr: string;
  /** The sysfs directory the phy's `device` link resolves to. */
  devicePath: string;
  /** The bus: `pci`, `usb`, `sdio`, `platform`. */
  bus: string;
  /** PCI/SDIO `vendor`/`device` or USB `idVendor`/`idProduct` file contents; none for SoC radios. */
  ids?: { vendor: string; device: string };
}

/**
 * The sysfs files and links of radios, laid out as the kernel does: /sys/class/ieee80211/<phy> with
 * `macaddress` and a `device` link; the device's `subsystem` link to /sys/bus/<bus>; the ids in the
 * device directory (PCI, SDIO) or in its parent, the USB device of the interface.
 */
export function radios(...specs: RadioSpec[]): Pick<MemoryDeviceSpec, 'files' | 'links'> {
  const files: Record<string, string> = {};
  const links: Record<string, string> = {};
  for (const radio of specs) {
    const phy = `/sys/class/ieee80211/${radio.phy}`;
    files[`${phy}/macaddress`] = `${radio.macAddr}\n`;
    files[`${phy}/index`] = `${radio.phy.replace('phy', '')}\n`;
    links[`${phy}/device`] = radio.devicePath;
    links[`${radio.devicePath}/subsystem`] = `/sys/bus/${radio.bus}`;
    if (radio.ids) {
      const usb = radio.bus === 'usb';
      const idDir = usb ? radio.devicePath.slice(0, radio.devicePath.lastIndexOf('/')) : radio.devicePath;
      files[`${idDir}/${usb ? 'idVendor' : 'vendor'}`] = `${radio.ids.vendor}\n`;
      files[`${idDir}/${usb ? 'idProduct' : 'device'}`] = `${radio.ids.device}\n`;
    }
  }
  return { files, links };
}

/** Merges device specs: files and links are combined, other fields of later specs win. */
export function combine(...specs: MemoryDeviceSpec[]): MemoryDeviceSpec {
  const out: MemoryDeviceSpec = {};
  for (const spec of specs) {
    Object.assign(out, { ...spec, files: { ...out.files, ...spec.files }, links: { ...out.links, ...spec.links } });
  }
  return out;
}

/** statfs of a filesystem with 4 KiB blocks. */
export function fsStats(blocks: number, bfree: number, bavail: number, bsize = 4096): FsStats {
  return { type: 0xef53, bsize, blocks, bfree, bavail, files: 65536, ffree: 60000 };
}

const NET_DEV_HEADER =
  'Inter-|   Receive                                                |  Transmit\n' +
  ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n';

/**
 * An x86_64 box built as a router: an ASUS board whose firmware left the system fields as
 * placeholders (fixtures/raw/dmi/systemd…, base board fields added), two Qualcomm Atheros PCI radios,
 * Debian 12, Docker.
 */
export const pciRouter: MemoryDeviceSpec = combine(
  {
    uname: { sysname: 'Linux', release: '6.1.0-18-amd64', machine: 'x86_64' },
    files: {
      ...dmiFilesFromDmidecode(rawFixture('dmi/systemd24446_asus_system_information_placeholder.txt')),
      '/sys/class/dmi/id/board_vendor': 'ASUSTeK COMPUTER INC.\n',
      '/sys/class/dmi/id/board_name': 'PRIME B450M-A\n',
      '/sys/class/dmi/id/board_version': 'Rev X.0x\n',
      '/sys/class/dmi/id/bios_vendor': 'American Megatrends Inc.\n',
      '/sys/class/dmi/id/bios_version': '3002\n',
      '/sys/class/dmi/id/bios_date': '03/11/2021\n',
      '/etc/os-release':
        'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION="12 (bookworm)"\n' +
        'VERSION_CODENAME=bookworm\nID=debian\nHOME_URL="https://www.debian.org/"\n',
      '/proc/uptime': '86400.73 160000.12\n',
      '/proc/meminfo':
        'MemTotal:       16314532 kB\nMemFree:         9875400 kB\nMemAvailable:   13011232 kB\nBuffers:          312084 kB\n' +
        'Cached:          2819764 kB\nSwapCached:            0 kB\nSwapTotal:       1000444 kB\nSwapFree:         750332 kB\n' +
        'SReclaimable:     201388 kB\nHugePages_Total:       0\nHugepagesize:       2048 kB\n',
      '/proc/stat':
        'cpu  8546 12 2686 118143 194 0 43 17 0 0\ncpu0 3662 5 1098 60004 15 0 15 7 0 0\ncpu1 4884 7 1588 58139 179 0 28 10 0 0\n' +
        'intr 240128 0 0 0\nctxt 530333\nbtime 1763640000\nprocesses 4242\nprocs_running 1\nprocs_blocked 0\nsoftirq 59531 0 8669 2 4243 0 0 5 20544 0 26068\n',
      '/proc/loadavg': '0.42 0.35 0.30 2/311 40211\n',
      '/proc/mounts':
        'sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\nproc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n' +
        'udev /dev devtmpfs rw,nosuid,relatime,size=8129648k,nr_inodes=2032412,mode=755 0 0\n' +
        'devpts /dev/pts devpts rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=000 0 0\n' +
        'tmpfs /run tmpfs rw,nosuid,nodev,noexec,relatime,size=1631456k,mode=755 0 0\n' +
        '/dev/nvme0n1p2 / ext4 rw,relatime,errors=remount-ro 0 0\n' +
        'securityfs /sys/kernel/security securityfs rw,nosuid,nodev,noexec,relatime 0 0\n' +
        'tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate 0 0\n' +
        '/dev/nvme0n1p1 /boot/efi vfat rw,relatime,fmask=0077,dmask=0077,codepage=437,iocharset=ascii,shortname=mixed,utf8,errors=remount-ro 0 0\n' +
        '/dev/sda1 /media/usb\\040stick vfat rw,nosuid,nodev,relatime 0 0\n' +
        'overlay /var/lib/docker/overlay2/5f1c/merged overlay rw,relatime,lowerdir=/var/lib/docker/overlay2/l/A:/var/lib/docker/overlay2/l/B 0 0\n' +
        'nsfs /run/docker/netns/default nsfs rw 0 0\n',
      '/proc/net/dev':
        NET_DEV_HEADER +
        '    lo:   22670     209    0    0    0     0          0         0    22670     209    0    0    0     0       0          0\n' +
        '  enp1s0:12345678901 9876543    3    7    0     0          0      1200 987654321  654321    1    2    0     0       0          0\n' +
        ' wlp4s0:  5000000    4000    0   10    0     0          0         0  7000000    6000    0    0    0     0       0          0\n' +
        'docker0:       0       0    0    0    0     0          0         0      736       8    0    0    0     0       0          0\n',
    },
    statfs: {
      '/': fsStats(60_000_000, 40_000_000, 37_000_000),
      '/run': fsStats(407_864, 407_000, 407_000),
      '/boot/efi': fsStats(130_812, 129_000, 129_000, 4096),
      '/media/usb stick': fsStats(3_900_000, 1_950_000, 1_950_000, 4096),
      '/var/lib/docker/overlay2/5f1c/merged': fsStats(60_000_000, 40_000_000, 37_000_000),
    },
    containers: [],
  },
  radios(
    {
      phy: 'phy0',
      macAddr: '04:F0:21:AA:BB:02',
      devicePath: '/sys/devices/pci0000:00/0000:00:1c.4/0000:0a:00.0',
      bus: 'pci',
      ids: { vendor: '0x168c', device: '0x0034' },
    },
    {
      phy: 'phy1',
      macAddr: '04:f0:21:aa:bb:01',
      devicePath: '/sys/devices/pci0000:00/0000:00:1c.0/0000:09:00.0',
      bus: 'pci',
      ids: { vendor: '0x168c', device: '0x003c' },
    },
  ),
);

/**
 * A GL.iNet GL-USB150 (MIPS AR9330, OpenWrt 18.06 on ar71xx, fixtures/raw/cpuinfo/mips_ar9330…):
 * no DMI, no device tree, the SoC's built-in radio and a Realtek USB dongle.
 */
export const mipsRouter: MemoryDeviceSpec = combine(
  {
    uname: { sysname: 'Linux', release: '4.9.120', version: '#0 Fri Aug 17 14:05:09 2018', machine: 'mips' },
    files: {
      '/proc/cpuinfo': rawFixture('cpuinfo/mips_ar9330_gl_usb150_tabs.txt'),
      '/proc/meminfo':
        'MemTotal:          61108 kB\nMemFree:           29452 kB\nMemAvailable:      20084 kB\nBuffers:            2048 kB\n' +
        'Cached:             8960 kB\nSwapTotal:             0 kB\nSwapFree:              0 kB\n',
      '/etc/openwrt_release':
        "DISTRIB_ID='OpenWrt'\nDISTRIB_RELEASE='18.06.1'\nDISTRIB_REVISION='r7258-5eb055306f'\nDISTRIB_TARGET='ar71xx/generic'\n" +
        "DISTRIB_ARCH='mips_24kc'\nDISTRIB_DESCRIPTION='OpenWrt 18.06.1 r7258-5eb055306f'\nDISTRIB_TAINTS=''\n",
      '/proc/uptime': '5025.01 4480.22\n',
    },
  },
  radios(
    { phy: 'phy0', macAddr: 'e4:95:6e:40:12:34', devicePath: '/sys/devices/platform/ath9k', bus: 'platform' },
    {
      phy: 'phy1',
      macAddr: '00:e0:4c:81:88:01',
      devicePath: '/sys/devices/platform/ehci-platform/usb1/1-1/1-1:1.0',
      bus: 'usb',
      ids: { vendor: '0bda', device: '8179' },
    },
  ),
);

/** What /proc/net/vlan/config holds with no VLAN yet, as a kernel with 8021q prints it (net/8021q/vlanproc.c). */
export const VLAN_CONFIG = 'VLAN Dev name\t | VLAN ID\nName-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD\n';

/** The LAN bridge `br-lan`, which VLAN networks are tagged on; combine it with `vlanKernel` for a device that builds them. */
export const lanBridge: MemoryDeviceSpec = { files: { '/sys/class/net/br-lan/ifindex': '4\n' } };

/** A kernel with 802.1Q (8021q loaded or built in). */
export const vlanKernel: MemoryDeviceSpec = { files: { '/proc/net/vlan/config': VLAN_CONFIG } };

/** A virtual machine: no DMI, no device tree, no radios, an x86 cpuinfo without board names. */
export const bareMachine: MemoryDeviceSpec = {
  uname: { sysname: 'Linux', release: '6.1.0-13-cloud-amd64', machine: 'x86_64' },
  files: {
    '/proc/cpuinfo':
      'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nmodel name\t: Intel Xeon Processor (Cascadelake)\n' +
      'flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 syscall nx lm constant_tsc\n\n',
    '/proc/meminfo': 'MemTotal:        2014256 kB\nMemFree:          912340 kB\nMemAvailable:    1612000 kB\n',
    '/usr/lib/os-release': 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nID=debian\n',
    '/proc/uptime': '59.99 110.50\n',
  },
};

/**
 * A GL.iNet GL-B1300 (Qualcomm IPQ4018, OpenWrt 23.05, fixtures/raw/cpuinfo/armv7_openwrt_ipq40xx…):
 * its cpuinfo names no board ("Generic DT based system"), the device tree does; two radios built into
 * the SoC, on the AHB bus.
 */
export const armOpenwrt: MemoryDeviceSpec = combine(
  {
    uname: { sysname: 'Linux', release: '5.15.150', version: '#0 SMP Thu Mar 21 12:00:00 2024', machine: 'armv7l' },
    files: {
      '/proc/cpuinfo': rawFixture('cpuinfo/armv7_openwrt_ipq40xx_4core_tabs.txt'),
      '/proc/device-tree/model': 'GL.iNet GL-B1300\0',
      '/etc/openwrt_release':
        "DISTRIB_ID='OpenWrt'\nDISTRIB_RELEASE='23.05.3'\nDISTRIB_REVISION='r23809-234f1a2efa'\nDISTRIB_TARGET='ipq40xx/generic'\n" +
        "DISTRIB_ARCH='arm_cortex-a7_neon-vfpv4'\nDISTRIB_DESCRIPTION='OpenWrt 23.05.3 r23809-234f1a2efa'\nDISTRIB_TAINTS=''\n",
      '/etc/os-release': 'NAME="OpenWrt"\nVERSION="23.05.3"\nID="openwrt"\nPRETTY_NAME="OpenWrt 23.05.3"\n',
      '/proc/uptime': '3600.42 13000.10\n',
      '/proc/meminfo':
        'MemTotal:         245072 kB\nMemFree:          150232 kB\nMemAvailable:     131700 kB\nBuffers:               0 kB\n' +
        'Cached:            22400 kB\nSwapTotal:             0 kB\nSwapFree:              0 kB\nSReclaimable:       2800 kB\n',
      '/proc/stat':
        'cpu  1200 0 900 1434000 20 0 300 0 0 0\ncpu0 300 0 225 358500 5 0 75 0 0 0\ncpu1 300 0 225 358500 5 0 75 0 0 0\n' +
        'cpu2 300 0 225 358500 5 0 75 0 0 0\ncpu3 300 0 225 358500 5 0 75 0 0 0\nintr 2100000\nctxt 1234567\nbtime 1763722800\n' +
        'processes 3456\nprocs_running 1\nprocs_blocked 0\n',
      '/proc/loadavg': '0.08 0.03 0.01 1/92 5123\n',
      '/proc/mounts':
        '/dev/root /rom squashfs ro,relatime,errors=continue 0 0\nproc /proc proc rw,nosuid,nodev,noexec,noatime 0 0\n' +
        'sysfs /sys sysfs rw,nosuid,nodev,noexec,noatime 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate 0 0\n' +
        'tmpfs /tmp tmpfs rw,nosuid,nodev,noatime 0 0\n/dev/mtdblock10 /overlay jffs2 rw,noatime 0 0\n' +
        'overlayfs:/overlay / overlay rw,noatime,lowerdir=/,upperdir=/overlay/upper,workdir=/overlay/work,xino=off 0 0\n' +
        'tmpfs /dev tmpfs rw,nosuid,noexec,noatime,size=512k,mode=755 0 0\ndevpts /dev/pts devpts rw,nosuid,noexec,noatime,mode=600,ptmxmode=000 0 0\n' +
        'debugfs /sys/kernel/debug debugfs rw,noatime 0 0\nnone /sys/fs/bpf bpf rw,nosuid,nodev,noexec,noatime,mode=700 0 0\n' +
        'pstore /sys/fs/pstore pstore rw,noatime 0 0\n',
      '/proc/net/dev':
        NET_DEV_HEADER +
        '    lo:   48210     620    0    0    0     0          0         0    48210     620    0    0    0     0       0          0\n' +
        '  eth0:98765432  123456    0    0    0     0          0       100 12345678   98765    0    0    0     0       0          0\n' +
        'br-lan: 4500000   30000    0    2    0     0          0       300 80000000   60000    0    0    0     0       0          0\n' +
        'phy0-ap0: 3000000   20000    0    0    0     0          0         0 60000000   45000    0   11    0     0       0          0\n',
    },
    statfs: {
      '/rom': fsStats(1_344, 0, 0, 4096),
      '/tmp': fsStats(30_634, 30_300, 30_300, 4096),
      '/overlay': fsStats(6_656, 6_200, 6_200, 4096),
      '/': fsStats(6_656, 6_200, 6_200, 4096),
    },
  },
  radios(
    { phy: 'phy0', macAddr: '94:83:c4:01:23:44', devicePath: '/sys/devices/platform/soc/a000000.wifi', bus: 'platform' },
    { phy: 'phy1', macAddr: '94:83:c4:01:23:45', devicePath: '/sys/devices/platform/soc/a800000.wifi', bus: 'platform' },
  ),
);

/**
 * Two chutes as Docker Engine answers for them (API 1.41, cgroup v2): one running with two stats
 * samples, one that has exited (no stats).
 */
export const chuteEngine: MemoryDeviceSpec = {
  containers: [
    {
      Id: '5f1c2d3e4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff',
      Names: ['/chute-hello-world'],
      Image: 'chutebox/hello-world:1.0',
      State: 'running',
      Status: 'Up 2 hours',
      Labels: { 'io.chutebox.chute': 'hello-world' },
    },
    {
      Id: 'aa11bb22cc33dd44ee55ff66aa77bb88cc99dd00ee11ff22aa33bb44cc55dd66',
      Names: ['/chute-sensor-log'],
      Image: 'chutebox/sensor-log:0.3',
      State: 'exited',
      Status: 'Exited (0) 5 minutes ago',
      Labels: { 'io.chutebox.chute': 'sensor-log' },
    },
  ],
  stats: {
    '5f1c2d3e4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff': {
      read: '2026-11-21T12:00:00.123456789Z',
      preread: '2026-11-21T11:59:59.120000000Z',
      pids_stats: { current: 7, limit: 4915 },
      cpu_stats: {
        cpu_usage: { total_usage: 152_000_000_000, usage_in_kernelmode: 40_000_000_000, usage_in_usermode: 112_000_000_000 },
        system_cpu_usage: 1_726_000_000_000_000,
        online_cpus: 2,
        throttling_data: { periods: 0, throttled_periods: 0, throttled_time: 0 },
      },
      precpu_stats: {
        cpu_usage: { total_usage: 151_900_000_000, usage_in_kernelmode: 39_990_000_000, usage_in_usermode: 111_910_000_000 },
        system_cpu_usage: 1_725_998_000_000_000,
        online_cpus: 2,
        throttling_data: { periods: 0, throttled_periods: 0, throttled_time: 0 },
      },
      memory_stats: { usage: 52_428_800, stats: { inactive_file: 10_485_760, active_file: 4_096_000, anon: 30_000_000 }, limit: 16_706_080_768 },
      networks: {
        eth0: { rx_bytes: 123_456, rx_packets: 900, rx_errors: 0, rx_dropped: 0, tx_bytes: 65_432, tx_packets: 700, tx_errors: 0, tx_dropped: 0 },
        eth1: { rx_bytes: 1_000, rx_packets: 10, rx_errors: 0, rx_dropped: 0, tx_bytes: 2_000, tx_packets: 20, tx_errors: 0, tx_dropped: 0 },
      },
    },
  },
};

/**
 * The body of an info endpoint's 200 answer on a memory device of `spec` (`okBody`: schemas checked).
 *
 * @example
 * const hardware = await infoOf(await import('../../functions/info/hardware.get.ts'), mipsRouter);
 */
export function infoOf<T>(module: EndpointModule<T>, spec: MemoryDeviceSpec): Promise<T> {
  return okBody<T>(module, memoryDevice(spec));
}
