import { describe, expect, it } from 'vitest';
import { chuteEngine } from '../../test/support/info-devices.ts';
import { containerUsage } from './docker-stats.ts';

describe('Docker container stats', () => {
  it('computes CPU percent from the two samples, memory without inactive page cache, and sums networks', () => {
    expect(containerUsage(Object.values(chuteEngine.stats!)[0]!)).toEqual({
      // 100 ms of CPU time while the 2 CPUs together ran 2 s (1 s each): 10 % of one CPU
      cpu: { total_usage_ns: 152_000_000_000, percent: 10 },
      memory: { usage: 52_428_800 - 10_485_760, limit: 16_706_080_768 },
      network: { rx_bytes: 124_456, tx_bytes: 67_432 },
      pids: 7,
    });
  });

  it('gives a null CPU percent when there is no previous sample', () => {
    const first = {
      cpu_stats: { cpu_usage: { total_usage: 5_000_000, percpu_usage: [2_000_000, 3_000_000] }, system_cpu_usage: 9_000_000_000 },
      precpu_stats: { cpu_usage: { total_usage: 0 }, throttling_data: {} },
      memory_stats: { usage: 4096, limit: 8192 },
    };
    expect(containerUsage(first).cpu).toEqual({ total_usage_ns: 5_000_000, percent: null });
  });

  it('counts CPUs from percpu_usage on old engines and subtracts cgroup v1 cache', () => {
    const v1 = {
      cpu_stats: { cpu_usage: { total_usage: 300, percpu_usage: [150, 150, 0, 0] }, system_cpu_usage: 2000 },
      precpu_stats: { cpu_usage: { total_usage: 200 }, system_cpu_usage: 1000 },
      memory_stats: { usage: 10_000, limit: 50_000, stats: { total_inactive_file: 3_000, inactive_file: 1_000 } },
    };
    expect(containerUsage(v1)).toMatchObject({ cpu: { percent: 40 }, memory: { usage: 7_000, limit: 50_000 } });
  });

  it('gives zeros for a container that does not run', () => {
    expect(containerUsage(null)).toEqual({
      cpu: { total_usage_ns: 0, percent: null },
      memory: { usage: 0, limit: 0 },
      network: { rx_bytes: 0, tx_bytes: 0 },
      pids: 0,
    });
  });
});
