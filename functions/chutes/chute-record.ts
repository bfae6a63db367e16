import type { StoredChute } from '../core/device/index.ts';
import { reusingLast } from '../core/reusing-last.ts';
import { chuteStateOfServices, serviceStates, type ServiceSummary } from './services.ts';
import type { ChuteState } from './state.ts';

/** The chute record: ParaDrop's answer to a chute list or read. */
export interface ChuteRecord {
  name: string;
  version: string | null;
  state: ChuteState;
  environment: Record<string, string>;
  allocation: Allocation;
  resources: Record<string, unknown> | null;
  /** ParaDrop's `services`: each service's state and allocation, by name. */
  services: Record<string, ServiceSummary>;
  /** ParaDrop's `owner`: who the chute's source names as its owner, null when it names none. */
  owner: string | null;
}

/** A chute's resource allocation: the seed's two fields, and any other stored one as it is. */
export interface Allocation {
  cpu_shares: number;
  prioritize_traffic: boolean;
  [field: string]: unknown;
}

/** Docker's default CPU weight, a chute's `cpu_shares` when its record names none. */
export const DEFAULT_CPU_SHARES = 1024;

/**
 * The record of a stored chute (`chute.yaml` / `chute.json`), its state from the container engine:
 * - `name`: the chute's name; `version` as a string (`1` → `"1"`), null when the record has none;
 * - `state`: from the states of its services' containers (`chuteStateOfServices`), the stored
 *   `state` counting only without an engine;
 * - `environment`: the stored variables, numbers and booleans written as strings, other values left
 *   out (they cannot be environment variables);
 * - `allocation`: the stored fields, with `cpu_shares` (an integer, 1024 by default) and
 *   `prioritize_traffic` (false by default) always present;
 * - `resources`: the stored mapping, null when there is none;
 * - `services`: each service's state and the chute's allocation (a chute stored without services has
 *   one, `main`); `owner`: the stored text, else null.
 *
 * @param containers `Device.containers()`.
 * @example
 * chuteRecord({ name: 'hello', record: { version: 1, state: 'running' }, config: {}, cache: {} }, null)
 * // { name: 'hello', version: '1', state: 'running', environment: {}, allocation: { cpu_shares: 1024, prioritize_traffic: false }, resources: null, services: { main: { state: 'running', allocation: { … } } }, owner: null }
 */
export function chuteRecord(chute: StoredChute, containers: readonly Record<string, unknown>[] | null): ChuteRecord {
  const { version, environment, allocation, resources, owner } = chute.record;
  const stored = mapping(allocation);
  // Assigned, not spread: a spread followed by more fields costs V8 microseconds.
  const allocated = Object.assign({}, stored, {
    cpu_shares: Number.isInteger(stored.cpu_shares) ? (stored.cpu_shares as number) : DEFAULT_CPU_SHARES,
    prioritize_traffic: typeof stored.prioritize_traffic === 'boolean' ? stored.prioritize_traffic : false,
  });
  const states = serviceStates(containers, chute.name, chute.record);
  const services: Record<string, ServiceSummary> = {};
  for (const [service, state] of Object.entries(states)) services[service] = { state, allocation: allocated };
  return {
    name: chute.name,
    version: typeof version === 'string' ? version : typeof version === 'number' ? String(version) : null,
    state: chuteStateOfServices(states),
    environment: variables(mapping(environment)),
    allocation: allocated,
    resources: isMapping(resources) ? resources : null,
    services,
    owner: typeof owner === 'string' ? owner : null,
  };
}

/** `chuteRecord`, made again only for another stored chute or other containers (each frozen on the emulator, so that a poll is answered the same frozen record). */
export const keptChuteRecord = reusingLast(chuteRecord);

function variables(stored: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(stored)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[name] = String(value);
  }
  return out;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A decoded document's value as a mapping; anything else (a list, a scalar, null) is an empty one.
 *
 * @example
 * mapping({ a: 1 }) // { a: 1 }
 * mapping([1])      // {}
 */
export function mapping(value: unknown): Record<string, unknown> {
  return isMapping(value) ? value : {};
}
