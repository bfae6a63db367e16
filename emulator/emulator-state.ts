import * as z from 'zod/mini';
import { HttpProblem, inputPath, type InputError } from '../functions/core/problem.ts';
import { invalidInput, validate } from '../functions/core/validate.ts';
import { parsePasswd } from '../functions/parsers/passwd.ts';
import { AccountsStateSchema, authorizedKeysFile, type AccountsState } from './scenario/accounts.ts';
import { ChangeLogStateSchema, ChutesStateSchema, EngineStateSchema, type ChangesState } from './scenario/changes.ts';
import { ClockReadingSchema, type ClockReading } from './emulated-clock.ts';
import { HostConfigStateSchema, type HostConfigState } from './scenario/host-config.ts';
import { AudioStateSchema, type RecordedPactl } from './scenario/audio.ts';
import { ProvisioningStateSchema, type ProvisioningState } from './scenario/provisioning.ts';
import { NetworksStateSchema, type NetworksState } from './scenario/recorded-networks.ts';
import { FaultsStateSchema, type FaultsState } from './faults/state.ts';
import { StateDocumentSchema } from './state-limits.ts';

/*
 * The state of an emulated device as one JSON document: what `GET /_chutebox/state` exports, `PUT`
 * imports, `chutebox emulate --state FILE` starts from, and `Scenario.snapshot()` / `restore()` /
 * `reset()` take and give in-process (emulator/scenario/device.ts). Each part is its facet's: the
 * facet's module says what it holds, gives it (`snapshot()`) and starts from it. See
 * docs/emulator.md#state-snapshot-restore-reset and docs/decisions/0030-emulator-state-snapshots.md.
 */

/**
 * The version of the state format; a state of another version is refused. Version 2 added the seed
 * and the whole clock (wall time and speed beside the elapsed time).
 */
export const EMULATOR_STATE_VERSION = 2;

/** A seed (`chutebox emulate --seed N`): a whole number that `draw` (emulator/seeded.ts) takes whole, 0 to 2^53 − 1. */
export const SeedSchema = z
  .int({ error: 'must be a whole number' })
  .check(z.nonnegative({ error: 'must not be negative' }), z.maximum(Number.MAX_SAFE_INTEGER));

/**
 * An emulated device's state, JSON through and through. Left out: the apitoken of the provisioning
 * (a secret of the controller's), the API's tokens and password (the auth policy's, not the device's),
 * telemetry's queue and counters, what the built-in fake controller received, and everything the
 * scenario recorded and no request changes (files, hardware, recordings).
 *
 * @example
 * {
 *   version: 2, scenario: 'default',
 *   chutes: { 'hello-world': { record: {…}, config: {…}, cache: {…} }, hotspot: {…} },
 *   engine: { containers: […], images: [] },
 *   changes: { nextId: 1, records: [] },
 *   networks: [{ chute: 'hotspot', network: 'guest', ssid: 'lab', disconnected: ['24:0a:c4:11:8b:3e'] }],
 *   hostConfig: { stored: null, previous: null, pdconf: {} },
 *   provisioning: null,
 *   accounts: { authorizedKeys: {} },
 *   seed: 1,
 *   clock: { now: 1795831918944, elapsedMs: 5230, speed: 1 },
 *   faults: { rules: [{ id: 'rule-1', effect: { status: 503 }, probability: 0.5, seed: 7 }], nextId: 2, counters: {…} },
 * }
 */
export interface EmulatorState extends ChangesState {
  version: typeof EMULATOR_STATE_VERSION;
  /** The name of the scenario it is a state of (`Scenario.name`): it is restored on that scenario only. */
  scenario: string;
  networks: NetworksState;
  hostConfig: HostConfigState;
  provisioning: ProvisioningState;
  accounts: AccountsState;
  /** The seed of what the emulator draws (emulator/seeded.ts). */
  seed: number;
  /** The emulated clock (emulator/emulated-clock.ts): its wall time, the time since the replay started, its speed. */
  clock: ClockReading;
  /** The fault rules and their counts (emulator/faults/state.ts); a state without them leaves the rules as they are. */
  faults?: FaultsState;
  /** The audio server's pactl outputs once requests edited them (emulator/scenario/audio.ts); without it, the recorded ones. */
  audio?: RecordedPactl;
}

/** An `EmulatorState` as JSON gives it: each field checked by its facet's schema. */
export const EmulatorStateSchema = z.strictObject({
  version: z.literal(EMULATOR_STATE_VERSION),
  scenario: z.string(),
  chutes: ChutesStateSchema,
  engine: EngineStateSchema,
  changes: ChangeLogStateSchema,
  networks: NetworksStateSchema,
  hostConfig: HostConfigStateSchema,
  provisioning: ProvisioningStateSchema,
  accounts: AccountsStateSchema,
  seed: SeedSchema,
  clock: ClockReadingSchema,
  faults: z.optional(FaultsStateSchema),
  audio: z.optional(AudioStateSchema),
});

/** Snapshots, restores and resets of an emulated device, in-process. */
export interface EmulatorStateApi {
  /** The device's state now, a plain JSON value: what `GET /_chutebox/state` answers. */
  snapshot(): Promise<EmulatorState>;
  /**
   * Makes the device's state the one given (checked first: nothing changes when it is refused). The
   * changes under way stop: nothing they would still do reaches the restored state.
   *
   * @throws HttpProblem 422 naming each field that does not fit: another version, another scenario, a bad value.
   */
  restore(state: EmulatorState): Promise<void>;
  /**
   * Back to the scenario as loaded: a restore of the state the device had when it was loaded, with
   * the seed it started with and its clock as started (`EmulatedClock.reset`).
   */
  reset(): Promise<void>;
}

/** What a state must fit besides the format: the device it is restored on. */
export interface StateTarget {
  /** The scenario's name. */
  scenario: string;
  /** Whether the scenario has a container engine (then `engine.containers` is a list, else null). */
  engine: boolean;
  /** The scenario's passwd database (its `etc/passwd`): the key files of a state must be its accounts'. */
  passwd(): Promise<string>;
}

/**
 * Checks a value (parsed JSON, or a state from code) as a state of `target`'s device and answers it,
 * as given. First the keys that name a prototype (`StateDocumentSchema`), then the version and the
 * scenario, each alone, so that a state of another version or scenario is refused as such rather than
 * field by field; then every field, the documents a client wrote no deeper than a request body, and
 * each list within `STATE_LIMITS`.
 *
 * @param at where the fields are named from: `''` the state's root, `'body'` a request's body.
 * @throws HttpProblem 422 listing each violation as `{ path, message }`, paths from `at`
 *   (`version`, `chutes.hotspot.config.net`, `changes.records[0].state`, `body.networks[1].ssid`).
 * @example
 * await checkEmulatorState(JSON.parse(text), { scenario: 'default', engine: true, passwd: async () => passwdText });
 */
export async function checkEmulatorState(value: unknown, target: StateTarget, at = ''): Promise<EmulatorState> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidInput('the state', [{ path: at, message: 'must be an object: a state as GET /_chutebox/state answers it' }]);
  }
  validate(StateDocumentSchema, value, at, 'the state');
  const { version, scenario } = value as Record<string, unknown>;
  if (version !== EMULATOR_STATE_VERSION) {
    throw refused({ path: inputPath(at, ['version']), message: `is ${shown(version)}; this chutebox reads version ${EMULATOR_STATE_VERSION} only` });
  }
  if (scenario !== target.scenario) {
    throw refused({
      path: inputPath(at, ['scenario']),
      message: `is ${shown(scenario)}: a state of another scenario; this emulator serves ${JSON.stringify(target.scenario)}`,
    });
  }
  // Checked, and then taken as given: zod's copy would put the known fields of a document first.
  validate(EmulatorStateSchema, value, at, 'the state');
  const state = value as EmulatorState;
  const errors = [
    ...engineErrors(state, target.engine),
    ...changeLogErrors(state),
    ...networkErrors(state),
    ...(await keyFileErrors(state, await target.passwd())),
  ].map((error) => ({ ...error, path: inputPath(at, error.path) }));
  if (errors.length > 0) throw invalidInput('the state', errors);
  return state;
}

/** A state refused as a whole, naming the one field that decides it. */
export function refused(error: InputError): HttpProblem {
  return new HttpProblem(422, `the state does not fit this emulator: ${error.path} ${error.message}`, { errors: [error] });
}

/** A value as a refusal shows it: a string quoted, a scalar as it is, cut at 64 characters; a mapping or list by what it is. */
export function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'a list' : 'a mapping';
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 64 ? `${text.slice(0, 64)}…` : text;
}

/** A violation that only the whole state shows: its path as keys from the state's root. */
interface StateError {
  path: PropertyKey[];
  message: string;
}

/** The engine is there in the state exactly when the scenario has one. */
function engineErrors(state: EmulatorState, engine: boolean): StateError[] {
  if (engine === (state.engine.containers !== null)) return [];
  return [
    {
      path: ['engine', 'containers'],
      message: engine ? 'must be a list: the scenario has a container engine' : 'must be null: the scenario has no container engine',
    },
  ];
}

/** Ids given once each, all below the next one. */
function changeLogErrors(state: EmulatorState): StateError[] {
  const errors: StateError[] = [];
  const seen = new Set<number>();
  state.changes.records.forEach((record, i) => {
    const path = ['changes', 'records', i, 'id'];
    if (seen.has(record.id)) errors.push({ path, message: `is ${record.id}, the id of an earlier record` });
    else if (record.id >= state.changes.nextId) errors.push({ path, message: `is ${record.id}: must be below nextId (${state.changes.nextId})` });
    seen.add(record.id);
  });
  return errors;
}

/** Each network listed once. */
function networkErrors(state: EmulatorState): StateError[] {
  const seen = new Set<string>();
  return state.networks.flatMap(({ chute, network }, i) => {
    const key = `${chute}/${network}`;
    if (seen.has(key)) return [{ path: ['networks', i], message: `lists ${key} again` }];
    seen.add(key);
    return [];
  });
}

/** Each key file is that of an account of the scenario. */
async function keyFileErrors(state: EmulatorState, passwd: string): Promise<StateError[]> {
  const files = new Set(parsePasswd(passwd).map((account) => authorizedKeysFile(account)));
  return Object.keys(state.accounts.authorizedKeys)
    .filter((file) => !files.has(file))
    .map((file) => ({ path: ['accounts', 'authorizedKeys', file], message: "is not the authorized_keys file of an account of the scenario's etc/passwd" }));
}
