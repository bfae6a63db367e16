import { describe, expect, it } from 'vitest';
import { armOpenwrt, chuteEngine, combine, fsStats, infoOf, pciRouter } from '../../test/support/info-devices.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import * as telemetry from './telemetry.get.ts';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0, 250);

describe('GET /api/v1/info/telemetry', () => {
  it('responds with 200 and the system totals of an OpenWrt router without a container engine', async () => {
    const report = await infoOf(telemetry, combine(armOpenwrt, { now: NOW }));
    expect(report.time).toBe(NOW / 1000);
    expect(report.chutes).toEqual([]);
    expect(report.system).toMatchObject({
      boot_time: 1763722800,
      cpu_count: 4,
      cpu_times_total: { user: 12, nice: 0, system: 9, idle: 14340, iowait: 0.2, irq: 0, softirq: 3, steal: 0 },
      load_average: [0.08, 0.03, 0.01],
      swap_memory: { total: 0, used: 0, free: 0, percent: 0 },
    });
    expect(report.system.cpu_times).toHaveLength(4);
    expect(report.system.cpu_times[3]).toEqual({ user: 3, nice: 0, system: 2.25, idle: 3585, iowait: 0.05, irq: 0, softirq: 0.75, steal: 0 });
    expect(report.system.virtual_memory).toEqual({
      total: 245072 * 1024,
      available: 131700 * 1024,
      free: 150232 * 1024,
      buffers: 0,
      cached: (22400 + 2800) * 1024,
      used: (245072 - 150232 - 22400 - 2800) * 1024,
      percent: 46.3,
    });
  });

  it('keeps the system part of its answer while only the time moved, so that its JSON is made once', async () => {
    const device = memoryDevice(armOpenwrt);
    let now = NOW;
    const ticking = { ...device, now: () => now };
    const input = { params: {}, query: {}, headers: {}, body: undefined, text: '' };
    const first = await telemetry.handle(input, ticking);
    now += 1000;
    const second = await telemetry.handle(input, ticking);
    expect(second.time).toBe(first.time + 1);
    expect(second.system).toBe(first.system);
  });

  it('responds with space on storage mounts only: the overlay root, its parts and /tmp, not /proc, /sys or /dev', async () => {
    const report = await infoOf(telemetry, armOpenwrt);
    expect(report.system.disk_usage).toEqual([
      { mountpoint: '/rom', device: '/dev/root', fstype: 'squashfs', total: 1344 * 4096, used: 1344 * 4096, free: 0, percent: 100 },
      { mountpoint: '/tmp', device: 'tmpfs', fstype: 'tmpfs', total: 30634 * 4096, used: 334 * 4096, free: 30300 * 4096, percent: 1.1 },
      { mountpoint: '/overlay', device: '/dev/mtdblock10', fstype: 'jffs2', total: 6656 * 4096, used: 456 * 4096, free: 6200 * 4096, percent: 6.9 },
      { mountpoint: '/', device: 'overlayfs:/overlay', fstype: 'overlay', total: 6656 * 4096, used: 456 * 4096, free: 6200 * 4096, percent: 6.9 },
    ]);
  });

  it('responds with counters per interface and their sum', async () => {
    const report = await infoOf(telemetry, armOpenwrt);
    expect(report.network.map((i) => i.name)).toEqual(['lo', 'eth0', 'br-lan', 'phy0-ap0']);
    expect(report.network[3]).toEqual({
      name: 'phy0-ap0',
      bytes_sent: 60000000,
      bytes_recv: 3000000,
      packets_sent: 45000,
      packets_recv: 20000,
      errin: 0,
      errout: 0,
      dropin: 0,
      dropout: 11,
    });
    expect(report.system.net_io_counters).toEqual({
      bytes_sent: 48210 + 12345678 + 80000000 + 60000000,
      bytes_recv: 48210 + 98765432 + 4500000 + 3000000,
      packets_sent: 620 + 98765 + 60000 + 45000,
      packets_recv: 620 + 123456 + 30000 + 20000,
      errin: 0,
      errout: 0,
      dropin: 2,
      dropout: 11,
    });
  });

  it('responds with one entry per chute container: usage of a running one, zeros and null CPU percent for an exited one', async () => {
    const report = await infoOf(telemetry, combine(pciRouter, chuteEngine));
    expect(report.chutes).toEqual([
      {
        name: 'hello-world',
        service: 'main',
        state: 'running',
        cpu: { total_usage_ns: 152_000_000_000, percent: 10 },
        memory: { usage: 52_428_800 - 10_485_760, limit: 16_706_080_768 },
        network: { rx_bytes: 124_456, tx_bytes: 67_432 },
        pids: 7,
      },
      {
        name: 'sensor-log',
        service: 'main',
        state: 'exited',
        cpu: { total_usage_ns: 0, percent: null },
        memory: { usage: 0, limit: 0 },
        network: { rx_bytes: 0, tx_bytes: 0 },
        pids: 0,
      },
    ]);
  });

  it('asks the engine for the stats of the running chutes only, all at once', async () => {
    const chute = (id: string, state: string) => ({ Id: id, Names: [`/${id}`], State: state, Labels: { 'io.chutebox.chute': id } });
    const inner = memoryDevice({ containers: [chute('web', 'running'), chute('old', 'exited'), chute('db', 'running')] });
    const asked: string[] = [];
    let pending = 0;
    let mostPending = 0;
    const device = {
      ...inner,
      async containerStats(id: string) {
        asked.push(id);
        mostPending = Math.max(mostPending, ++pending);
        await new Promise((resolve) => setImmediate(resolve));
        pending--;
        return inner.containerStats(id);
      },
    };
    const report = await telemetry.handle({ params: {}, query: {}, headers: {}, body: undefined, text: '' }, device);
    expect(report.chutes.map((c) => `${c.name} ${c.state}`)).toEqual(['web running', 'old exited', 'db running']);
    expect(asked).toEqual(['web', 'db']);
    expect(mostPending).toBe(2);
  });

  it('lists a file system once when a folder of it is bind-mounted onto itself, as dockerd does with /var/lib/docker', async () => {
    const root = fsStats(60_000_000, 40_000_000, 37_000_000);
    const report = await infoOf(telemetry, {
      files: { '/proc/mounts': '/dev/sda2 / ext4 rw,relatime 0 0\n/dev/sda2 /var/lib/docker ext4 rw,relatime 0 0\n' },
      statfs: { '/': root, '/var/lib/docker': { ...root } },
    });
    expect(report.system.disk_usage.map((d) => `${d.device} ${d.mountpoint}`)).toEqual(['/dev/sda2 /']);
  });

  it('lists two tmpfs mounts apart when their statfs differ', async () => {
    const report = await infoOf(telemetry, {
      files: { '/proc/mounts': 'tmpfs /run tmpfs rw,nosuid,size=407864k 0 0\ntmpfs /tmp tmpfs rw,nosuid 0 0\n' },
      statfs: { '/run': fsStats(101_966, 101_700, 101_700), '/tmp': fsStats(2_039_320, 2_039_000, 2_039_000) },
    });
    expect(report.system.disk_usage.map((d) => `${d.device} ${d.mountpoint}`)).toEqual(['tmpfs /run', 'tmpfs /tmp']);
  });

  it('responds with swap and a mount point with a space in its name, without the container layers, on a Debian host', async () => {
    const report = await infoOf(telemetry, pciRouter);
    expect(report.system.swap_memory).toEqual({ total: 1000444 * 1024, used: 250112 * 1024, free: 750332 * 1024, percent: 25 });
    expect(report.system.disk_usage.map((d) => `${d.fstype} ${d.mountpoint}`)).toEqual(['tmpfs /run', 'ext4 /', 'vfat /boot/efi', 'vfat /media/usb stick']);
    expect(report.system.disk_usage[1]).toEqual({
      mountpoint: '/',
      device: '/dev/nvme0n1p2',
      fstype: 'ext4',
      total: 60_000_000 * 4096,
      used: 20_000_000 * 4096,
      free: 37_000_000 * 4096,
      percent: 35.1,
    });
  });

  it('leaves out a mount whose statfs cannot be read', async () => {
    const report = await infoOf(telemetry, combine(armOpenwrt, { statfs: { '/': armOpenwrt.statfs!['/']! } }));
    expect(report.system.disk_usage.map((d) => d.mountpoint)).toEqual(['/']);
  });

  it('responds with zeros and empty lists on a device without any of the sources', async () => {
    expect(await infoOf(telemetry, { now: NOW })).toEqual({
      time: NOW / 1000,
      system: {
        boot_time: null,
        cpu_count: 0,
        cpu_times: [],
        cpu_times_total: { user: 0, nice: 0, system: 0, idle: 0, iowait: 0, irq: 0, softirq: 0, steal: 0 },
        load_average: [0, 0, 0],
        virtual_memory: { total: 0, available: 0, free: 0, buffers: 0, cached: 0, used: 0, percent: 0 },
        swap_memory: { total: 0, used: 0, free: 0, percent: 0 },
        disk_usage: [],
        net_io_counters: { bytes_sent: 0, bytes_recv: 0, packets_sent: 0, packets_recv: 0, errin: 0, errout: 0, dropin: 0, dropout: 0 },
      },
      network: [],
      chutes: [],
    });
  });
});
