import { CHUTE_LABEL, type Device } from '../core/device/index.ts';
import { containerService } from '../chutes/services.ts';
import { reusingLast } from '../core/reusing-last.ts';
import { containerUsage } from '../parsers/docker-stats.ts';
import type { Telemetry } from './schemas.ts';

/** What one chute's container uses: an entry of the telemetry report's `chutes`. */
export type ChuteUsage = Telemetry['chutes'][number];

/** One chute container's usage, and whether the engine gave its stats (it runs, and they came in time): without them it is all zeros. */
export interface MeasuredChute {
  usage: ChuteUsage;
  measured: boolean;
}

/**
 * The chute containers (`Device.containers()`), with the stats of the running ones, all asked for at
 * once: what telemetry reports of each chute and `GET /metrics` exposes as cAdvisor does.
 *
 * @example
 * await measureChutes(device, (await device.containers()) ?? []) // [{ usage: { name: 'hello-world', state: 'running', cpu: { … }, … }, measured: true }]
 */
export async function measureChutes(device: Device, containers: readonly Record<string, unknown>[]): Promise<MeasuredChute[]> {
  const stats = await Promise.all(
    containers.map((container) => (container.State === 'running' && typeof container.Id === 'string' ? device.containerStats(container.Id) : null)),
  );
  return containers.map((container, i) => ({ usage: usageOf(device, container, stats[i] ?? null), measured: (stats[i] ?? null) !== null }));
}

/** `chuteUsage`, made again only when the container or its stats changed (each frozen where the engine's answers are shared). */
const usageOf = reusingLast(chuteUsage);

/** A chute's name is its container's chute label (else the container name), its service the one the labels name, its state the container's. */
function chuteUsage(container: Record<string, unknown>, stats: Record<string, unknown> | null): ChuteUsage {
  const labels = container.Labels as Record<string, unknown> | undefined;
  const label = labels?.[CHUTE_LABEL];
  const names = container.Names;
  const containerName = Array.isArray(names) && typeof names[0] === 'string' ? names[0].replace(/^\//, '') : String(container.Id ?? '');
  return {
    name: typeof label === 'string' && label !== '' ? label : containerName,
    service: containerService(labels),
    state: typeof container.State === 'string' ? container.State : 'unknown',
    ...containerUsage(stats),
  };
}
