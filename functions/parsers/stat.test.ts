import { describe, expect, it } from 'vitest';
import { parseStat, sumCpuTimes } from './stat.ts';

const TWO_CPUS = `cpu  8546 12 2686 118143 194 0 43 17 0 0
cpu0 3662 5 1098 60004 15 0 15 7 0 0
cpu1 4884 7 1588 58139 179 0 28 10 0 0
intr 240128 0 0 0 0 0 0 0 0
ctxt 530333
btime 1763640000
processes 4242
procs_running 1
procs_blocked 0
softirq 59531 0 8669 2 4243 0 0 5 20544 0 26068
`;

describe('/proc/stat', () => {
  const stat = parseStat(TWO_CPUS);

  it('gives the times of the aggregate cpu line in seconds (100 ticks per second)', () => {
    expect(stat.total).toEqual({ user: 85.46, nice: 0.12, system: 26.86, idle: 1181.43, iowait: 1.94, irq: 0, softirq: 0.43, steal: 0.17 });
  });

  it('gives one entry per cpuN line and the boot time', () => {
    expect(stat.cpus).toHaveLength(2);
    expect(stat.cpus[1]).toEqual({ user: 48.84, nice: 0.07, system: 15.88, idle: 581.39, iowait: 1.79, irq: 0, softirq: 0.28, steal: 0.1 });
    expect(stat.bootTime).toBe(1763640000);
  });

  it('reads columns an old kernel does not print as 0', () => {
    const old = parseStat('cpu  100 0 50 1000\ncpu0 100 0 50 1000\n');
    expect(old.cpus[0]).toEqual({ user: 1, nice: 0, system: 0.5, idle: 10, iowait: 0, irq: 0, softirq: 0, steal: 0 });
    expect(old.bootTime).toBeNull();
  });

  it('orders CPUs by number and gives nothing for an empty file', () => {
    expect(parseStat('cpu10 1 0 0 0\ncpu2 2 0 0 0\n').cpus.map((cpu) => cpu.user)).toEqual([0.02, 0.01]);
    expect(parseStat('')).toEqual({ total: null, cpus: [], bootTime: null });
  });

  it('sums CPU times', () => {
    expect(sumCpuTimes(stat.cpus).user).toBeCloseTo(85.46);
  });
});
