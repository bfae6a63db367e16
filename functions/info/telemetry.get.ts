import type { Device, FsStats } from '../core/device/index.ts';
import type { Handler } from '../core/handler.ts';
import { defineRoute } from '../core/route.ts';
import { reusingLast } from '../core/reusing-last.ts';
import { parseLoadavg } from '../parsers/loadavg.ts';
import { parseMeminfo, swapMemory, virtualMemory } from '../parsers/meminfo.ts';
import { distinctFileSystems, parseMounts, storageMounts, type Mount } from '../parsers/mounts.ts';
import { parseNetDev, sumCounters } from '../parsers/netdev.ts';
import { percent } from '../parsers/numbers.ts';
import { parseStat, sumCpuTimes } from '../parsers/stat.ts';
import { measureChutes } from './chute-usage.ts';
import { NoInputSchema, TelemetrySchema, type Telemetry } from './schemas.ts';

export const route = defineRoute('GET /api/v1/info/telemetry', 'Resource use of the system and of each chute');
export const request = NoInputSchema;
export const response = TelemetrySchema;

type DiskUsage = Telemetry['system']['disk_usage'][number];

/**
 * ParaDrop's telemetry report, with psutil's field names and units (bytes, seconds):
 * CPU times and boot time from /proc/stat, load from /proc/loadavg, memory and swap from
 * /proc/meminfo, space on every storage file system of /proc/mounts (by statfs; pseudo filesystems,
 * unreadable mounts and second views of a file system left out), network counters from
 * /proc/net/dev, and one entry per chute container (none when the device has no container engine).
 * A missing source gives zeros or empty lists. The sources are read at once: the stats of the
 * running chutes take about a second.
 *
 * @example
 * (await handle(input, device)).system.load_average // [0.2, 0.18, 0.12]
 */
export const handle: Handler<Telemetry> = async (_input, device) => {
  const [stat, loadavg, meminfo, diskUsage, netdev, chutes] = await Promise.all([
    device.readFile('/proc/stat'),
    device.readFile('/proc/loadavg'),
    device.readFile('/proc/meminfo'),
    device.readFile('/proc/mounts').then((mounts) => readDiskUsage(device, storageMountsOf(device, mounts ?? ''))),
    device.readFile('/proc/net/dev'),
    device.containers().then(async (containers) => chutesOf(device, ...(await measureChutes(device, containers ?? [])).map((chute) => chute.usage))),
  ]);
  const network = netDevOf(device, netdev ?? '');
  return {
    time: device.now() / 1000,
    system: systemOf(device, statOf(device, stat ?? ''), loadOf(device, loadavg ?? ''), memoryOf(device, meminfo ?? ''), diskUsage, network.total),
    network: network.interfaces,
    chutes,
  };
};

/**
 * The system part, made again only when one of its parts changed: while none did (the time alone
 * moved), the answer holds the same frozen part, whose JSON is kept (`answerJson`).
 */
const systemOf = reusingLast(
  (
    kernel: ReturnType<typeof statOf>,
    load: Telemetry['system']['load_average'],
    memory: ReturnType<typeof memoryOf>,
    disks: DiskUsage[],
    counters: Telemetry['system']['net_io_counters'],
  ): Telemetry['system'] => ({
    boot_time: kernel.bootTime,
    cpu_count: kernel.cpus.length,
    cpu_times: kernel.cpus,
    cpu_times_total: kernel.total,
    load_average: load,
    virtual_memory: memory.virtual,
    swap_memory: memory.swap,
    disk_usage: disks,
    net_io_counters: counters,
  }),
);

/** The chutes' usages in one list, made again only when one changed: while none did, the answer holds the same frozen list. */
const chutesOf = reusingLast((...usages: Telemetry['chutes']): Telemetry['chutes'] => usages);

/** What each source says, worked out again only when its text changed (frozen: an answer holding it reuses its JSON, see `answerJson`). */
const statOf = reusingLast((text: string) => {
  const kernel = parseStat(text);
  return { ...kernel, total: kernel.total ?? sumCpuTimes(kernel.cpus) };
});
const memoryOf = reusingLast((text: string) => {
  const memory = parseMeminfo(text);
  return { virtual: virtualMemory(memory), swap: swapMemory(memory) };
});
const netDevOf = reusingLast((text: string) => {
  const interfaces = parseNetDev(text);
  return { interfaces, total: sumCounters(interfaces) };
});
const loadOf = reusingLast((text: string): [number, number, number] => parseLoadavg(text) ?? [0, 0, 0]);
const storageMountsOf = reusingLast((text: string) => storageMounts(parseMounts(text)));

async function readDiskUsage(device: Device, mounts: Mount[]): Promise<DiskUsage[]> {
  return diskUsageOf(device, mounts, JSON.stringify(await Promise.all(mounts.map((mount) => device.statfs(mount.mountpoint)))));
}

/**
 * The space of each file system of `mounts`, from their `statfs` answers (as JSON: the numbers, not
 * the objects the device answered, which it may change), worked out again only when one changed.
 */
const diskUsageOf = reusingLast((mounts: Mount[], statfsJson: string) => {
  const answers = JSON.parse(statfsJson) as (FsStats | null)[];
  const measured = mounts.flatMap((mount, i) => {
    const stats = answers[i];
    return stats ? [{ mount, stats }] : [];
  });
  return distinctFileSystems(measured).map(({ mount, stats }) => diskUsage(mount, stats));
});

/**
 * Space as psutil's `disk_usage()` counts it: `used` is what is not free even to root, `free` what an
 * ordinary user may still write, and `percent` is used / (used + free).
 */
function diskUsage(mount: Mount, fs: FsStats): DiskUsage {
  const total = fs.blocks * fs.bsize;
  const used = (fs.blocks - fs.bfree) * fs.bsize;
  const free = fs.bavail * fs.bsize;
  return { mountpoint: mount.mountpoint, device: mount.device, fstype: mount.fstype, total, used, free, percent: percent(used, used + free) };
}
