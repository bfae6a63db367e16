import { resolvePlaceholders } from '../../functions/config/secret-placeholders.ts';
import { CHUTE_LABEL, chuteContainerName, MAIN_SERVICE_LABEL, SERVICE_LABEL, type ChuteAction, type StoredChute } from '../../functions/core/device/index.ts';
import { companionContainerName, companionServices, storedServices } from '../../functions/chutes/services.ts';
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

/** The containers that belong to a chute: its own and its other services' (`service` undefined), or those of one service (null: its own). */
function owned(chute: StoredChute, engine: EmulatedEngine, service?: string | null): Record<string, unknown>[] {
  return (engine.containers ?? []).filter((entry) => {
    const labels = entry.Labels as Record<string, unknown> | undefined;
    return labels?.[CHUTE_LABEL] === chute.name && (service === undefined || labels[SERVICE_LABEL] === (service ?? undefined));
  });
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
  let container = owned(chute, engine, null)[0];
  if (container === undefined) {
    container = newContainer(chute, engine);
    engine.containers.push(container);
    messages.push(`created container ${short(container.Id)} from image ${String(container.Image)}`);
  }
  Object.assign(container, { State: 'running', Status: 'Up Less than a second' });
  // A device makes the container anew for a new environment; the emulator keeps the recorded one (and its stats).
  const extra =
    environment === undefined ? '' : ` with the new environment (${Object.keys(environment).join(', ') || 'none'}; emulated: the recorded container is kept)`;
  return [...messages, `started container ${short(container.Id)}${extra}`, ...startCompanions(chute, engine)];
}

/** Runs the chute's other services beside its container, each in a new container, as the device does. */
function startCompanions(chute: StoredChute, engine: EmulatedEngine): string[] {
  const services = companionServices(chute.record);
  if (services.length === 0 || engine.containers === null) return [];
  const messages = removeCompanions(chute, engine);
  for (const [service, entry] of services) {
    const container = newContainer(chute, engine, service, entry.image);
    engine.containers.push(container);
    messages.push(`started container ${short(container.Id)} of service ${service} from image ${String(entry.image)}`);
  }
  return messages;
}

/** Removes the containers of the chute's other services. */
function removeCompanions(chute: StoredChute, engine: EmulatedEngine): string[] {
  const gone = owned(chute, engine).filter((entry) => !owned(chute, engine, null).includes(entry));
  if (engine.containers !== null) engine.containers.splice(0, engine.containers.length, ...engine.containers.filter((entry) => !gone.includes(entry)));
  return gone.map((container) => `removed container ${short(container.Id)} of service ${String((container.Labels as Record<string, unknown>)[SERVICE_LABEL])}`);
}

/** Stops a chute's container, noting it as the device does. */
function stopChute(chute: StoredChute, engine: EmulatedEngine): string[] {
  enter(chute, engine, 'stopped');
  if (engine.containers === null) return [`the scenario has no container engine: chute ${chute.name} is recorded as stopped (emulated)`];
  const messages: string[] = [];
  for (const container of owned(chute, engine).filter((entry) => !owned(chute, engine, null).includes(entry))) {
    stopContainer(container);
    messages.push(`stopped container ${short(container.Id)} of service ${String((container.Labels as Record<string, unknown>)[SERVICE_LABEL])}`);
  }
  const container = owned(chute, engine, null)[0];
  if (container === undefined) return [...messages, 'no container to stop'];
  stopContainer(container);
  return [...messages, `stopped container ${short(container.Id)}`];
}

/** A running container, exited as a stop leaves it. */
function stopContainer(container: Record<string, unknown>): void {
  if (container.State === 'running' || container.State === 'restarting' || container.State === 'paused')
    Object.assign(container, { State: 'exited', Status: 'Exited (0) Less than a second ago' });
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
      ...removeCompanions(chute, engine),
      ...stopChute(chute, engine),
      ...startChute(chute, engine),
    ];
  },
};

/**
 * A container for a chute that has none in the recordings (or for its service `service`), as a device
 * would create it: its id drawn from the seed, the chute, the change and the service, so that the same
 * writes make the same container.
 */
function newContainer(chute: StoredChute, { now, seed, change }: EmulatedEngine, service?: string, serviceImage?: string | null): Record<string, unknown> {
  const { version } = chute.record;
  const image = service === undefined ? chute.record.image : serviceImage;
  return {
    Id: drawnHex(seed, 32, 'container', chute.name, change, ...(service === undefined ? [] : [service])),
    Names: [`/${service === undefined ? chuteContainerName(chute.name) : companionContainerName(chute.name, service)}`],
    Image: typeof image === 'string' ? image : `chutebox/${chute.name}:${typeof version === 'string' || typeof version === 'number' ? version : 'latest'}`,
    Created: Math.floor(now / 1000),
    Labels: { [CHUTE_LABEL]: chute.name, ...serviceLabels(chute, service) },
    State: 'running',
    Status: 'Up Less than a second',
  };
}

/** The service labels of a chute's container: its service's, or on its own container the name of its main service. */
function serviceLabels(chute: StoredChute, service: string | undefined): Record<string, string> {
  if (service !== undefined) return { [SERVICE_LABEL]: service };
  const stored = storedServices(chute.record);
  return stored === null ? {} : { [MAIN_SERVICE_LABEL]: stored.main };
}

/** `bytes` bytes in hex, each drawn from the seed and `parts` (`draw`). */
function drawnHex(seed: number, bytes: number, ...parts: DrawParts): string {
  return Array.from({ length: bytes }, (_, i) =>
    Math.floor(draw(seed, ...parts, i) * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('');
}
