import { percent } from './numbers.ts';

/** /proc/meminfo as numbers: sizes in bytes (the file says `kB`, meaning KiB), counts as they are. */
export type Meminfo = Record<string, number>;

/**
 * Parses `Name:   123 kB` lines; a line without a unit (`HugePages_Total:  0`) is a count.
 * Lines that do not fit the format are skipped.
 *
 * @example
 * parseMeminfo('MemTotal:        1024 kB\nHugePages_Total:       0\n') // { MemTotal: 1048576, HugePages_Total: 0 }
 */
export function parseMeminfo(text: string): Meminfo {
  const values: Meminfo = {};
  for (const line of text.split('\n')) {
    const match = /^([^:\s]+):\s*(\d+)(?:\s+(\w+))?\s*$/.exec(line);
    if (!match) continue;
    const unit = UNITS[(match[3] ?? '').toLowerCase()];
    if (unit === undefined) continue;
    values[match[1]!] = Number(match[2]) * unit;
  }
  return values;
}

/** Multipliers of the units /proc/meminfo prints; none means a count. */
const UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** Memory totals in bytes, as psutil's `virtual_memory()` reports them; `percent` is of `total`. */
export interface VirtualMemory {
  total: number;
  available: number;
  free: number;
  buffers: number;
  cached: number;
  used: number;
  percent: number;
}

/**
 * RAM use the way psutil computes it: `cached` includes reclaimable slab, `used` is what is neither
 * free nor buffers nor cache, `percent` is the share that is not available. Kernels before 3.14 have
 * no `MemAvailable`; then available = free + buffers + cached. Missing values count as 0.
 *
 * @example
 * virtualMemory(parseMeminfo('MemTotal: 1000 kB\nMemFree: 200 kB\nMemAvailable: 500 kB\n')).percent // 50
 */
export function virtualMemory(meminfo: Meminfo): VirtualMemory {
  const total = meminfo.MemTotal ?? 0;
  const free = meminfo.MemFree ?? 0;
  const buffers = meminfo.Buffers ?? 0;
  const cached = (meminfo.Cached ?? 0) + (meminfo.SReclaimable ?? 0);
  const available = Math.min(total, meminfo.MemAvailable ?? free + buffers + cached);
  let used = total - free - buffers - cached;
  if (used < 0) used = total - free;
  return { total, available, free, buffers, cached, used, percent: percent(total - available, total) };
}

/** Swap totals in bytes, as psutil's `swap_memory()` reports them. */
export interface SwapMemory {
  total: number;
  used: number;
  free: number;
  percent: number;
}

/**
 * Swap use; a device without swap has all zeros.
 *
 * @example
 * swapMemory(parseMeminfo('SwapTotal: 1000 kB\nSwapFree: 750 kB\n')).percent // 25
 */
export function swapMemory(meminfo: Meminfo): SwapMemory {
  const total = meminfo.SwapTotal ?? 0;
  const free = Math.min(total, meminfo.SwapFree ?? 0);
  const used = total - free;
  return { total, used, free, percent: percent(used, total) };
}
