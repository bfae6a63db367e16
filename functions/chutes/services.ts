import { MAIN_SERVICE_LABEL, SERVICE_LABEL, type ChuteService, type ChuteServices } from '../core/device/index.ts';
import { containerState, type ChuteState } from './state.ts';

export type { ChuteService, ChuteServices, ServiceType } from '../core/device/index.ts';

/*
 * The services of a chute (ParaDrop's multi-service chutes, decision 0061): one container per
 * service. The main service's container is the chute's container (`chute-<chute>`, the one its
 * networks join); every other service's container (`chute-<chute>-<service>`, labelled
 * `io.chutebox.service`) shares its network namespace, so every service is on the chute's networks.
 */

/** The service of a chute stored without services (a JSON install, an older chute): ParaDrop's name for it. */
export const MAIN_SERVICE = 'main';

/** A service's name: lower-case letters, digits and dashes, as a container name and a host name take it. */
export const SERVICE_NAME = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/**
 * The services a chute's record keeps, or null for a chute stored without them (one container, its
 * image the record's).
 */
export function storedServices(record: Record<string, unknown>): ChuteServices | null {
  const { services, main_service: main } = record;
  if (typeof services !== 'object' || services === null || typeof main !== 'string' || !(main in services)) return null;
  return { main, services: services as Record<string, ChuteService> };
}

/** The name of a chute's main service: its record's `main_service`, `main` for a chute stored without services. */
export function mainServiceName(record: Record<string, unknown>): string {
  return storedServices(record)?.main ?? MAIN_SERVICE;
}

/** The main service of a chute's record, or undefined for a chute stored without services. */
export function mainService(record: Record<string, unknown>): ChuteService | undefined {
  const stored = storedServices(record);
  return stored?.services[stored.main];
}

/**
 * The services a chute's source installs when the request names none: one, `main`, built from the
 * Dockerfile at the source's root.
 */
export function servicesOrRoot(services: ChuteServices | undefined): ChuteServices {
  return services ?? { main: MAIN_SERVICE, services: { [MAIN_SERVICE]: { type: 'normal', image: null, source: '' } } };
}

/**
 * The services with the image tags their builds get: the main one `mainTag` (a chute's image tag,
 * `chuteImageTag`), each other one built from the source `<mainTag>-<service>`; an `image` service keeps its image.
 *
 * @example
 * taggedServices({ main: 'web', services: { web: { type: 'normal', image: null }, db: { type: 'light', image: null, use: 'node' } } }, 'chute-shop:2')
 * // web: chute-shop:2, db: chute-shop:2-db
 */
export function taggedServices(services: ChuteServices, mainTag: string): ChuteServices {
  const tagged: Record<string, ChuteService> = {};
  for (const [name, service] of Object.entries(services.services)) {
    tagged[name] = service.type === 'image' ? service : { ...service, image: name === services.main ? mainTag : `${mainTag}-${name}` };
  }
  return { main: services.main, services: tagged };
}

/** The services of a chute other than its main one, which run beside its container. */
export function companionServices(record: Record<string, unknown>): [string, ChuteService][] {
  const stored = storedServices(record);
  return stored === null ? [] : Object.entries(stored.services).filter(([name]) => name !== stored.main);
}

/** The name of the container of a chute's service other than its main one. */
export function companionContainerName(chute: string, service: string): string {
  return `chute-${chute}-${service}`;
}

/** What a chute answers of each of its services (ParaDrop's `services`): its state, and the chute's allocation. */
export interface ServiceSummary {
  state: ChuteState;
  allocation: Record<string, unknown>;
}

/**
 * Each service's state, from the container engine: the main service's is the chute container's
 * (`chuteState`), another's its own container's (`io.chutebox.service=<service>`).
 */
export function serviceStates(
  containers: readonly Record<string, unknown>[] | null,
  chute: string,
  record: Record<string, unknown>,
): Record<string, ChuteState> {
  const stored = storedServices(record);
  const main = containerState(containers, chute, undefined, record.state);
  if (stored === null) return { [MAIN_SERVICE]: main };
  const states: Record<string, ChuteState> = {};
  for (const name of Object.keys(stored.services)) states[name] = name === stored.main ? main : containerState(containers, chute, name, record.state);
  return states;
}

/** The order in which a state keeps a chute from running: the first any service has is the chute's. */
const FURTHEST_FROM_RUNNING: readonly ChuteState[] = ['failed', 'missing', 'restarting', 'stopping', 'installing', 'stopped'];

/**
 * The chute's state from its services' states: `running` only when every service runs, else the state
 * of the service furthest from running, in the order failed, missing, restarting, stopping,
 * installing, stopped.
 *
 * @example
 * chuteStateOfServices({ web: 'running', db: 'failed' })  // 'failed'
 * chuteStateOfServices({ web: 'running', db: 'running' }) // 'running'
 */
export function chuteStateOfServices(states: Record<string, ChuteState>): ChuteState {
  const all = Object.values(states);
  return FURTHEST_FROM_RUNNING.find((state) => all.includes(state)) ?? 'running';
}

/**
 * The service a chute container runs, from its labels: `io.chutebox.service` on another service's,
 * `io.chutebox.main-service` on the chute's own, else `main` (a chute installed without services).
 */
export function containerService(labels: Record<string, unknown> | undefined): string {
  const service = labels?.[SERVICE_LABEL] ?? labels?.[MAIN_SERVICE_LABEL];
  return typeof service === 'string' ? service : MAIN_SERVICE;
}

/** Whether an engine container is a chute's companion (a service other than its main one). */
export function isCompanion(labels: Record<string, unknown>): boolean {
  return typeof labels[SERVICE_LABEL] === 'string';
}
