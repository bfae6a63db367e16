import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod/mini';
import { inputPath } from '../../functions/core/problem.ts';
import { invalidInput, validate } from '../../functions/core/validate.ts';
import { ClockReadingSchema, emulatedClock, type ClockReading, type EmulatedClock } from '../emulated-clock.ts';
import { refused, SeedSchema, shown } from '../emulator-state.ts';
import { FaultsStateSchema, type FaultsState } from '../faults/state.ts';
import { StateDocumentSchema } from '../state-limits.ts';
import { DeviceDocumentSchema, type DeviceDocument } from './device-document.ts';
import type { Fleet } from './fleet.ts';
import { FleetFaultsStateSchema, type FleetFaults, type FleetFaultsState } from './fleet-faults.ts';
import type { HeldDevice } from './held-device.ts';
import type { FleetShare } from './members.ts';

/** The version of a fleet's state; a state of another version is refused. */
export const FLEET_STATE_VERSION = 1;

/**
 * How large a fleet's state may be for `PUT /_chutebox/state`: a larger one is refused (a 413 over
 * `bytes`, a 422 over `values`), changing nothing. A device with a chute installed takes some 3.5 KB
 * of it, one whose SSID changed some 250 bytes (docs/emulator.md#a-fleets-state).
 */
export const FLEET_STATE_LIMITS = { bytes: 16 * 1024 * 1024, values: 1_000_000 } as const;

/** A device of a fleet's state: as the fleet holds it (`HeldDevice`), its clock as read when the state was taken. */
export interface FleetDeviceState {
  document: DeviceDocument;
  faults?: FaultsState;
  clock: ClockReading;
}

/**
 * A whole fleet's state (`GET /_chutebox/state` of a fleet): the fleet it is of (seed, size, scenarios,
 * as started), its clock and its rules, and each device that differs from its seed's, by id in index
 * order. A device not listed is as its seed makes it.
 *
 * @example
 * {
 *   version: 1, seed: 7, size: 1000, scenarios: [{ scenario: 'default', share: 1 }],
 *   clock: { now: 1795831918944, elapsedMs: 5230, speed: 1 },
 *   faults: { rules: [{ id: 'rule-1', effect: { status: 503 }, devices: { share: 0.01 }, probability: 1, seed: 7 }], nextId: 2 },
 *   devices: { 'router-42': { document: { state: { networks: […] }, clock: {…} }, clock: {…} } },
 * }
 */
export interface FleetState {
  version: typeof FLEET_STATE_VERSION;
  seed: number;
  size: number;
  scenarios: FleetShare[];
  clock: ClockReading;
  faults: FleetFaultsState;
  devices: Record<string, FleetDeviceState>;
}

/** A `FleetState` as JSON gives it, each field checked by its part's schema. */
export const FleetStateSchema = z.strictObject({
  version: z.literal(FLEET_STATE_VERSION),
  seed: SeedSchema,
  size: z.int(),
  scenarios: z.array(z.strictObject({ scenario: z.string(), share: z.number() })),
  clock: ClockReadingSchema,
  faults: FleetFaultsStateSchema,
  devices: z.record(z.string(), z.strictObject({ document: DeviceDocumentSchema, faults: z.optional(FaultsStateSchema), clock: ClockReadingSchema })),
});

/** What a fleet's state is taken from and restored to: its devices, its rules and its clock. */
export interface FleetStateParts {
  fleet: Fleet;
  rules: FleetFaults;
  clock: Pick<EmulatedClock, 'read' | 'restore'>;
}

/** A fleet's state, taken and restored in-process: what `GET` and `PUT /_chutebox/state` of a fleet do. */
export interface FleetStateApi {
  snapshot(): Promise<FleetState>;
  /**
   * Makes the fleet's state the one given: its clock and rules, each device listed as it was, every
   * other as its seed makes it. Checked whole first, every device included: nothing changes when it is refused.
   *
   * @throws HttpProblem 422 naming each field that does not fit from `at`: another version, another
   *   fleet (`seed`, `size`, `scenarios`), a bad value, a device's state that does not restore on it.
   */
  restore(value: unknown, at?: string): Promise<void>;
}

/**
 * The state of a whole fleet (docs/emulator.md#a-fleets-state): bounded by what its devices wrote, as
 * each device's writes are bounded (`STATE_LIMITS`) and an untouched device is not in it.
 *
 * @example
 * const state = fleetState({ fleet, rules, clock });
 * const taken = await state.snapshot();
 * await state.restore(taken); // every device as it was when taken
 */
export function fleetState({ fleet, rules, clock }: FleetStateParts): FleetStateApi {
  return {
    async snapshot() {
      const { seed, size, scenarios } = fleet.spec;
      const devices: Record<string, FleetDeviceState> = {};
      for (const [id, { clock: held, ...kept }] of await fleet.differing()) devices[id] = { ...kept, clock: held.read() };
      return { version: FLEET_STATE_VERSION, seed, size, scenarios: [...scenarios], clock: clock.read(), faults: await rules.snapshot(), devices };
    },
    async restore(value, at = '') {
      const state = checkFleetState(value, fleet, at);
      const prepared = await rules.prepare(state.faults, inputPath(at, ['faults']));
      const devices = new Map<string, HeldDevice>();
      for (const [id, { clock: reading, ...kept }] of Object.entries(state.devices)) devices.set(id, { ...kept, clock: emulatedClock(reading) });
      await fleet.check(devices, inputPath(at, ['devices']));
      rules.restore(prepared);
      clock.restore(state.clock);
      await fleet.restore(devices);
    },
  };
}

/**
 * Checks a value as a state of `fleet`: the version, then the fleet it is of (each field alone, so
 * that a state of another fleet is refused as such), then every field.
 *
 * @throws HttpProblem 422 naming each field that does not fit from `at`.
 */
function checkFleetState(value: unknown, fleet: Fleet, at: string): FleetState {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidInput('the state', [{ path: at, message: "must be an object: a fleet's state as GET /_chutebox/state answers it" }]);
  }
  const given = value as Record<string, unknown>;
  if (given.version !== FLEET_STATE_VERSION) {
    throw refused({ path: inputPath(at, ['version']), message: `is ${shown(given.version)}; this chutebox reads version ${FLEET_STATE_VERSION} only` });
  }
  for (const field of ['seed', 'size', 'scenarios'] as const) {
    if (!isDeepStrictEqual(given[field], fleet.spec[field])) {
      const served = JSON.stringify(fleet.spec[field]);
      throw refused({ path: inputPath(at, [field]), message: `is ${shown(given[field])}: a state of another fleet; this fleet's ${field} is ${served}` });
    }
  }
  // Each device's part checked as one device's state is, then the rest: a fleet may list more devices than a mapping of a state has keys.
  const { devices, ...rest } = given;
  validate(StateDocumentSchema, rest, at, 'the state');
  if (typeof devices === 'object' && devices !== null) {
    for (const [id, device] of Object.entries(devices)) validate(StateDocumentSchema, device, inputPath(at, ['devices', id]), 'the state');
  }
  validate(FleetStateSchema, value, at, 'the state');
  return value as FleetState;
}
