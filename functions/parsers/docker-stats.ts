/**
 * The body of the Docker Engine API's `GET /containers/{id}/stats?stream=false`, reduced to what a
 * telemetry report shows.
 */
export interface ContainerUsage {
  cpu: {
    /** CPU time the container used since it started, in nanoseconds. */
    total_usage_ns: number;
    /** Share of one CPU × 100 over the sampling interval (200 = two full CPUs); null without a previous sample. */
    percent: number | null;
  };
  /** Bytes in use (page cache that can be dropped, `inactive_file`, is not counted, as `docker stats` does) and the limit. */
  memory: { usage: number; limit: number };
  /** Bytes over all the container's interfaces. */
  network: { rx_bytes: number; tx_bytes: number };
  /** Processes and threads in the container. */
  pids: number;
}

/**
 * Reads a stats body. Missing fields read as 0; a body of null (a container that does not run) gives
 * all zeros and a null CPU percent.
 *
 * CPU percent is computed as `docker stats` does: cpu_delta / system_delta × online_cpus × 100, where
 * the deltas are between `cpu_stats` and `precpu_stats`; null when there is no previous sample.
 *
 * @example
 * containerUsage({
 *   cpu_stats: { cpu_usage: { total_usage: 400 }, system_cpu_usage: 2000, online_cpus: 2 },
 *   precpu_stats: { cpu_usage: { total_usage: 300 }, system_cpu_usage: 1000 },
 *   memory_stats: { usage: 1000, limit: 4000 }, pids_stats: { current: 3 },
 * }).cpu.percent // 20
 */
export function containerUsage(stats: Record<string, unknown> | null): ContainerUsage {
  const totalUsage = number(stats, 'cpu_stats', 'cpu_usage', 'total_usage');
  return {
    cpu: { total_usage_ns: totalUsage, percent: cpuPercent(stats) },
    memory: { usage: memoryUsage(stats), limit: number(stats, 'memory_stats', 'limit') },
    network: networkBytes(stats),
    pids: number(stats, 'pids_stats', 'current'),
  };
}

function cpuPercent(stats: Record<string, unknown> | null): number | null {
  const previousSystem = number(stats, 'precpu_stats', 'system_cpu_usage');
  if (previousSystem === 0) return null;
  const systemDelta = number(stats, 'cpu_stats', 'system_cpu_usage') - previousSystem;
  const cpuDelta = number(stats, 'cpu_stats', 'cpu_usage', 'total_usage') - number(stats, 'precpu_stats', 'cpu_usage', 'total_usage');
  if (systemDelta <= 0) return null;
  const perCpu = at(stats, 'cpu_stats', 'cpu_usage', 'percpu_usage');
  const onlineCpus = number(stats, 'cpu_stats', 'online_cpus') || (Array.isArray(perCpu) ? perCpu.length : 0) || 1;
  return Math.round((Math.max(0, cpuDelta) / systemDelta) * onlineCpus * 100 * 100) / 100;
}

/** `usage` less the inactive page cache: `total_inactive_file` on cgroup v1, `inactive_file` on v2. */
function memoryUsage(stats: Record<string, unknown> | null): number {
  const usage = number(stats, 'memory_stats', 'usage');
  for (const key of ['total_inactive_file', 'inactive_file']) {
    const inactive = at(stats, 'memory_stats', 'stats', key);
    if (typeof inactive === 'number' && inactive < usage) return usage - inactive;
  }
  return usage;
}

function networkBytes(stats: Record<string, unknown> | null): { rx_bytes: number; tx_bytes: number } {
  const networks = at(stats, 'networks');
  const total = { rx_bytes: 0, tx_bytes: 0 };
  if (networks === null || typeof networks !== 'object') return total;
  for (const counters of Object.values(networks)) {
    total.rx_bytes += number(counters, 'rx_bytes');
    total.tx_bytes += number(counters, 'tx_bytes');
  }
  return total;
}

/** The value at a path of keys, or undefined when any step is missing. */
function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The number at a path, or 0 when it is missing or not a finite number. */
function number(value: unknown, ...path: string[]): number {
  const found = at(value, ...path);
  return typeof found === 'number' && Number.isFinite(found) ? found : 0;
}
