import { decimal, fields } from './numbers.ts';

/** Clock ticks per second of the times in /proc/stat (`USER_HZ`, 100 on every Linux ABI). */
export const USER_HZ = 100;

/** Time a CPU spent in each state since boot, in seconds, as psutil's `cpu_times()` names them. */
export interface CpuTimes {
  user: number;
  nice: number;
  system: number;
  idle: number;
  iowait: number;
  irq: number;
  softirq: number;
  steal: number;
}

/** The columns of a `cpu` line in the order the kernel prints them (guest times follow; unused). */
const CPU_COLUMNS = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal'] as const;

/** What /proc/stat tells about CPUs and boot. */
export interface KernelStat {
  /** The aggregate `cpu` line, or null when the file has none. */
  total: CpuTimes | null;
  /** One entry per `cpuN` line (online CPUs), in N order. */
  cpus: CpuTimes[];
  /** `btime`: boot time in seconds since the epoch, or null. */
  bootTime: number | null;
}

/**
 * Parses /proc/stat. Times are in USER_HZ ticks in the file and in seconds here; columns an older
 * kernel does not print (iowait before 2.5.41, steal before 2.6.11) read as 0.
 *
 * @example
 * parseStat('cpu  100 0 50 1000 0 0 0 0 0 0\ncpu0 100 0 50 1000 0 0 0 0 0 0\nbtime 1700000000\n')
 * // { total: { user: 1, nice: 0, system: 0.5, idle: 10, … }, cpus: [ … ], bootTime: 1700000000 }
 */
export function parseStat(text: string): KernelStat {
  let total: CpuTimes | null = null;
  const cpus: { index: number; times: CpuTimes }[] = [];
  let bootTime: number | null = null;
  for (const line of text.split('\n')) {
    const [name, ...values] = fields(line);
    if (name === undefined) continue;
    if (name === 'btime') {
      bootTime = decimal(values[0]);
    } else if (name === 'cpu') {
      total = cpuTimes(values);
    } else {
      const cpu = /^cpu(\d+)$/.exec(name);
      if (cpu) cpus.push({ index: Number(cpu[1]), times: cpuTimes(values) });
    }
  }
  cpus.sort((a, b) => a.index - b.index);
  return { total, cpus: cpus.map((cpu) => cpu.times), bootTime };
}

function cpuTimes(values: string[]): CpuTimes {
  const times = {} as CpuTimes;
  CPU_COLUMNS.forEach((column, i) => {
    times[column] = (decimal(values[i]) ?? 0) / USER_HZ;
  });
  return times;
}

/**
 * The sum of several CPUs' times, for a /proc/stat without an aggregate line.
 *
 * @example
 * sumCpuTimes([]) // { user: 0, nice: 0, … }
 */
export function sumCpuTimes(cpus: CpuTimes[]): CpuTimes {
  const sum = cpuTimes([]);
  for (const cpu of cpus) for (const column of CPU_COLUMNS) sum[column] += cpu[column];
  return sum;
}
