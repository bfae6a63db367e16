import { resolvePlaceholders } from '../../functions/config/secret-placeholders.ts';
import { CHUTE_LABEL, chuteContainerName, type ChuteAction, type StoredChute } from '../../functions/core/device/index.ts';
import type { ChangeRequestOf } from '../../runtime/changes/runner.ts';
import { draw, type DrawParts } from '../seeded.ts';

/**
 * The containers of the emulated engine (null: the scenario has no engine), which changes edit in
 * place, the clock, the seed and the change's id (what a new container's id is drawn from), and the
 * states the chute was put in, in order (its `chute.state` events).
 */
export interface EmulatedEngine {
  containers: Record<string, unknown>[] | null;
  now: number;
  seed: number;
  change: number;
  states: string[];
}

/** What a change to a chute does to its documents and to the engine (both edited in place), as messages. */
export type ChuteEdit<A extends ChuteAction> = (chute: StoredChute, request: ChangeRequestOf<A>, engine: EmulatedEngine) => string[];

/** The containers that belong to a chute. */
function owned(chute: StoredChute, engine: EmulatedEngine): Record<string, unknown>[] {
  return (engine.containers ?? []).filter((entry) => (entry.Labels as Record<string, unknown> | undefined)?.[CHUTE_LABEL] === chute.name);
}

/** Puts the chute in `state`, and keeps it in the engine's list of states. */
function enter(chute: StoredChute, engine: EmulatedEngine, state: 'running' | 'stopped'): void {
  chute.record.state = state;
  engine.states.push(state);
}

/** A container's id as the device's change messages show it: its first 12 characters. */
const short = (id: unknown) => String(id).slice(0, 12);

/**
 * Runs a chute's container (made, as on a device, when it has none), noting each step as the device's
 * lifecycle does (runtime/chutes/container-steps.ts).
 */
function startChute(chute: StoredChute, engine: EmulatedEngine, environment?: Record<string, string>): string[] {
  enter(chute, engine, 'running');
  if (environment !== undefined) chute.record.environment = { ...environment };
  if (engine.containers === null) return [`the scenario has no container engine: chute ${chute.name} is recorded as running (emulated)`];
  const messages: string[] = [];
  let container = owned(chute, engine)[0];
  if (container === undefined) {
    container = newContainer(chute, engine);
    engine.containers.push(container);
    messages.push(`created container ${short(container.Id)} from image ${String(container.Image)}`);
  }
  Object.assign(container, { State: 'running', Status: 'Up Less than a second' });
  // A device makes the container anew for a new environment; the emulator keeps the recorded one (and its stats).
  const extra =
    environment === undefined ? '' : ` with the new environment (${Object.keys(environment).join(', ') || 'none'}; emulated: the recorded container is kept)`;
  return [...messages, `started container ${short(container.Id)}${extra}`];
}

/** Stops a chute's container, noting it as the device does. */
function stopChute(chute: StoredChute, engine: EmulatedEngine): string[] {
  enter(chute, engine, 'stopped');
  if (engine.containers === null) return [`the scenario has no container engine: chute ${chute.name} is recorded as stopped (emulated)`];
  const container = owned(chute, engine)[0];
  if (container === undefined) return ['no container to stop'];
  if (container.State === 'running' || container.State === 'restarting' || container.State === 'paused')
    Object.assign(container, { State: 'exited', Status: 'Exited (0) Less than a second ago' });
  return [`stopped container ${short(container.Id)}`];
}

/** What each change to a chute does in the emulator: a table that lacks an action does not compile. */
export const CHUTE_EDITS: { [A in ChuteAction]: ChuteEdit<A> } = {
  start: (chute, request, engine) => startChute(chute, engine, request.environment),
  stop: (chute, _request, engine) => stopChute(chute, engine),
  restart: (chute, request, engine) => [...stopChute(chute, engine), ...startChute(chute, engine, request.environment)],
  delete(chute, _request, engine) {
    enter(chute, engine, 'stopped');
    const gone = owned(chute, engine);
    if (engine.containers !== null) engine.containers.splice(0, engine.containers.length, ...engine.containers.filter((entry) => !gone.includes(entry)));
    return [...gone.map((container) => `stopped and removed container ${short(container.Id)}`), `removed the stored chute ${chute.name}`];
  },
  'update-config'(chute, request, engine) {
    // Placeholders keep the secrets in effect now, which a change queued before this one may have set.
    chute.config = resolvePlaceholders(structuredClone(request.config), chute.config, `the configuration of chute ${chute.name}`);
    return ['stored the new configuration', ...stopChute(chute, engine), ...startChute(chute, engine)];
  },
  install: (chute, _request, engine) => [`stored chute ${chute.name}`, ...startChute(chute, engine)],
  update(chute, request, engine) {
    Object.assign(chute.record, { version: request.version, environment: { ...request.environment } });
    chute.config = structuredClone(request.config);
    return [
      `stored the new record (image ${String(chute.record.image)}, version ${String(request.version)}) and configuration`,
      ...stopChute(chute, engine),
      ...startChute(chute, engine),
    ];
  },
};

/**
 * A container for a chute that has none in the recordings, as a device would create it: its id drawn
 * from the seed, the chute and the change, so that the same writes make the same container.
 */
function newContainer(chute: StoredChute, { now, seed, change }: EmulatedEngine): Record<string, unknown> {
  const { image, version } = chute.record;
  return {
    Id: drawnHex(seed, 32, 'container', chute.name, change),
    Names: [`/${chuteContainerName(chute.name)}`],
    Image: typeof image === 'string' ? image : `chutebox/${chute.name}:${typeof version === 'string' || typeof version === 'number' ? version : 'latest'}`,
    Created: Math.floor(now / 1000),
    Labels: { [CHUTE_LABEL]: chute.name },
    State: 'running',
    Status: 'Up Less than a second',
  };
}

/** `bytes` bytes in hex, each drawn from the seed and `parts` (`draw`). */
function drawnHex(seed: number, bytes: number, ...parts: DrawParts): string {
  return Array.from({ length: bytes }, (_, i) =>
    Math.floor(draw(seed, ...parts, i) * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('');
}
