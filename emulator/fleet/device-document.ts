import * as z from 'zod/mini';
import type { Timers } from '../../runtime/controller/telemetry.ts';
import { ClockReadingSchema, type ClockReading } from '../emulated-clock.ts';
import type { EmulatorState } from '../emulator-state.ts';
import type { ChangeUnderWay } from '../scenario/changes.ts';
import type { Scenario } from '../scenario/core.ts';
import { stateDelta, withDelta, type StateDelta } from './lambda/state-delta.ts';

/**
 * What is kept of a fleet's device that is not built (in the Lambda fleet's table, or in the memory of
 * `emulate --fleet` once it left the devices kept built): its state's delta from the state its seed
 * makes, its clock then, and the changes then under way, which carry on from there when it is built again.
 */
export interface DeviceDocument {
  state: StateDelta;
  clock: ClockReading;
  underWay?: ChangeUnderWay[];
}

/** A `DeviceDocument` as the fleet writes one: what a document read back must be. */
export const DeviceDocumentSchema = z.object({
  state: z.record(z.string(), z.unknown()),
  clock: ClockReadingSchema,
  underWay: z.optional(
    z.array(z.object({ id: z.int(), request: z.looseObject({ action: z.string() }), turnAt: z.nullable(z.int()), conflicting: z.optional(z.literal(true)) })),
  ),
});

/** Telemetry's timers on a device built only to be read or restored: none fires. */
export const NO_TIMERS: Timers = { setTimeout: () => null, clearTimeout: () => {} };

/**
 * The document of `scenario` now, against `base` (the snapshot of the device its seed makes): the steps
 * due now (a change that takes no time) are taken first.
 */
export async function documentOf(scenario: Scenario, base: EmulatorState): Promise<DeviceDocument> {
  await scenario.clock.set({ advanceMs: 0 });
  const state = await scenario.snapshot();
  const underWay = scenario.changesUnderWay();
  return { state: stateDelta(base, state), clock: state.clock, ...(underWay.length > 0 ? { underWay } : {}) };
}

/**
 * Puts a device just built from its seed (`base`: its snapshot then) in the state of `document`, at
 * the document's clock, its changes under way carried on from there.
 *
 * @throws HttpProblem 422 when the document does not restore on the device, naming its fields from `at` (the state's); nothing changes then.
 */
export async function restoreDocument(scenario: Scenario, base: EmulatorState, document: DeviceDocument, at?: string): Promise<void> {
  await scenario.restore(withDelta(base, document.state, document.clock), at, document.underWay);
}
