import { CHUTE_LABEL, SERVICE_LABEL } from '../core/device/index.ts';

/**
 * The states of a chute (docs/api/chutes.md):
 * - `installing`: an install has been accepted and the container does not run yet;
 * - `running`: its container runs;
 * - `stopping`: its container is being removed;
 * - `stopped`: its container exists but does not run (never started, paused, or exited with code 0);
 * - `restarting`: the engine is restarting its container;
 * - `failed`: its container exited with an error (a non-zero code) or is dead;
 * - `missing`: the chute is installed but has no container.
 */
export const CHUTE_STATES = ['installing', 'running', 'stopping', 'stopped', 'restarting', 'failed', 'missing'] as const;
export type ChuteState = (typeof CHUTE_STATES)[number];

/**
 * The state of a chute, from the container engine: the one place where engine states become chute
 * states. The chute's container is the one whose `io.chutebox.chute` label is the chute's name (the
 * most recently created one, should there be several).
 *
 * | engine                                  | chute state                                        |
 * |-----------------------------------------|----------------------------------------------------|
 * | `running`                               | `running`                                          |
 * | `restarting`                            | `restarting`                                       |
 * | `removing`                              | `stopping`                                         |
 * | `created`, `paused`                     | `stopped`                                          |
 * | `exited`, `Status` `Exited (0) …`       | `stopped`                                          |
 * | `exited`, any other exit code           | `failed`, or `stopped` when a stop was asked       |
 * | `dead`                                  | `failed`                                           |
 * | a state chutebox does not know          | `stopped` (it is not running)                      |
 * | no container                            | `installing` while an install runs, else `missing` |
 * | no reachable engine (`containers` null) | `stored`, the last known state, else `missing`     |
 *
 * An `exited` container whose `Status` names no exit code counts as `stopped`: nothing says it failed.
 * A container that a stop change ended (the stored state is `stopped`) counts as `stopped` whatever
 * its exit code: a process killed by SIGTERM or, after the grace period, SIGKILL exits 143 or 137.
 *
 * @param containers `Device.containers()`: the chute containers, or null without a reachable engine.
 * @param stored the `state` of the chute's stored record.
 * @example
 * chuteState([{ Labels: { 'io.chutebox.chute': 'hello' }, State: 'exited', Status: 'Exited (137) 5 minutes ago' }], 'hello', 'running') // 'failed'
 * chuteState([], 'hello', 'running')   // 'missing'
 * chuteState(null, 'hello', 'running') // 'running'
 */
export function chuteState(containers: readonly Record<string, unknown>[] | null, name: string, stored: unknown): ChuteState {
  return containerState(containers, name, undefined, stored);
}

/**
 * The state of one container of a chute, as `chuteState` maps it: the chute's own (`service`
 * undefined) or that of its service `service` (labelled `io.chutebox.service`, functions/chutes/services.ts).
 */
export function containerState(containers: readonly Record<string, unknown>[] | null, name: string, service: string | undefined, stored: unknown): ChuteState {
  if (containers === null) return isChuteState(stored) ? stored : 'missing';
  const container = chuteContainer(containers, name, service);
  if (container === undefined) return stored === 'installing' ? 'installing' : 'missing';
  switch (container.State) {
    case 'running':
      return 'running';
    case 'restarting':
      return 'restarting';
    case 'removing':
      return 'stopping';
    case 'exited':
      return (exitCode(container.Status) ?? 0) === 0 || stored === 'stopped' ? 'stopped' : 'failed';
    case 'dead':
      return 'failed';
    default:
      return 'stopped';
  }
}

/** Whether a value is one of `CHUTE_STATES`. */
export function isChuteState(value: unknown): value is ChuteState {
  return (CHUTE_STATES as readonly unknown[]).includes(value);
}

/**
 * The container of a chute (labelled with its name, no service label) or of its service `service`,
 * the most recently created one first.
 */
function chuteContainer(containers: readonly Record<string, unknown>[], name: string, service: string | undefined): Record<string, unknown> | undefined {
  let found: Record<string, unknown> | undefined;
  for (const container of containers) {
    const labels = container.Labels as Record<string, unknown> | null | undefined;
    if (typeof labels !== 'object' || labels === null || labels[CHUTE_LABEL] !== name || labels[SERVICE_LABEL] !== service) continue;
    if (found === undefined || created(container) > created(found)) found = container;
  }
  return found;
}

function created(container: Record<string, unknown>): number {
  return typeof container.Created === 'number' ? container.Created : 0;
}

/**
 * The exit code in the engine's `Status` of an exited container, or null when it names none.
 *
 * @example
 * exitCode('Exited (137) 5 minutes ago') // 137
 */
function exitCode(status: unknown): number | null {
  const match = typeof status === 'string' ? /^Exited \((-?\d+)\)/.exec(status) : null;
  return match === null ? null : Number(match[1]);
}
