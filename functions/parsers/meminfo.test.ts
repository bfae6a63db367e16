import { describe, expect, it } from 'vitest';
import { parseMeminfo, swapMemory, virtualMemory } from './meminfo.ts';

const DEBIAN = `MemTotal:       24684096 kB
MemFree:        24316636 kB
MemAvailable:   24321828 kB
Buffers:            3660 kB
Cached:           200044 kB
SwapCached:            0 kB
Active(anon):       1528 kB
SwapTotal:       2097148 kB
SwapFree:        1572860 kB
SReclaimable:      30632 kB
VmallocTotal:   34359738367 kB
HugePages_Total:       0
HugePages_Free:        0
Hugepagesize:       2048 kB
`;

describe('/proc/meminfo', () => {
  const meminfo = parseMeminfo(DEBIAN);

  it('gives sizes in bytes and counts as they are', () => {
    expect(meminfo.MemTotal).toBe(24684096 * 1024);
    expect(meminfo['Active(anon)']).toBe(1528 * 1024);
    expect(meminfo.VmallocTotal).toBe(34359738367 * 1024);
    expect(meminfo.HugePages_Total).toBe(0);
    expect(meminfo.Hugepagesize).toBe(2048 * 1024);
  });

  it('skips lines that are not in the format', () => {
    expect(parseMeminfo('garbage\nMemTotal: lots kB\n\nMemFree: 12 kB\n')).toEqual({ MemFree: 12 * 1024 });
  });

  it('reports RAM as psutil does: cache includes reclaimable slab, percent is what is not available', () => {
    const kib = 1024;
    expect(virtualMemory(meminfo)).toEqual({
      total: 24684096 * kib,
      available: 24321828 * kib,
      free: 24316636 * kib,
      buffers: 3660 * kib,
      cached: (200044 + 30632) * kib,
      used: (24684096 - 24316636 - 3660 - 200044 - 30632) * kib,
      percent: 1.5,
    });
  });

  it('estimates available memory on kernels without MemAvailable', () => {
    const old = parseMeminfo('MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 100 kB\nCached: 300 kB\n');
    expect(virtualMemory(old)).toMatchObject({ available: 500 * 1024, used: 500 * 1024, percent: 50 });
  });

  it('reports swap use, and zeros on a device without swap', () => {
    expect(swapMemory(meminfo)).toEqual({ total: 2097148 * 1024, used: 524288 * 1024, free: 1572860 * 1024, percent: 25 });
    expect(swapMemory(parseMeminfo('MemTotal: 1000 kB\n'))).toEqual({ total: 0, used: 0, free: 0, percent: 0 });
  });
});
