import { nestedPath } from '../../functions/core/problem.ts';
import type { ApiFunction } from '../../runtime/http/api.ts';
import { emulatedClock, type EmulatedClock } from '../emulated-clock.ts';
import { emulatorAdmin, type EmulatorAdmin } from '../admin.ts';
import type { FaultsState } from '../faults/state.ts';
import type { Scenario, ScenarioOptions } from '../scenario/core.ts';
import { documentOf, NO_TIMERS, restoreDocument, type DeviceDocument } from './device-document.ts';
import { memberDevice, type FleetScenarios } from './member-device.ts';
import type { FleetMember } from './members.ts';

/**
 * A device of a fleet that left the devices kept built (docs/decisions/0065-a-fleet-keeps-a-bounded-set-of-devices-built.md):
 * its document (its state's delta from its seed's, its clock then, its changes under way), its fault
 * rules with what they counted when it had any, and its clock, which runs on from then as the device's
 * would have (a set of the fleet's clock moves it too).
 */
export interface HeldDevice {
  document: DeviceDocument;
  faults?: FaultsState;
  clock: EmulatedClock;
}

/** How the fleet's devices are built: the shared scenarios and the options each device is made with. */
export interface HeldOptions {
  scenarios: FleetScenarios;
  device?: Omit<ScenarioOptions, 'seed' | 'deviceFaults'>;
}

/** A device of the fleet as built (`FleetDevice`), as far as what is held of it goes. */
interface BuiltDevice {
  member: FleetMember;
  scenario: Scenario;
  admin: EmulatorAdmin | undefined;
  administered(): Promise<EmulatorAdmin>;
}

/**
 * `device` as a fleet holds it, the device left as it is: its document against the state its seed
 * makes (a device built for that and dropped), and its fault rules' state when it has rules; null for
 * a device whose state is its seed's and that has no rules (its seed makes it again).
 */
export async function asHeld(options: HeldOptions, device: BuiltDevice): Promise<HeldDevice | null> {
  const { scenario } = device;
  const reading = scenario.clock.read();
  const seedsOwn = memberDevice(options.scenarios, device.member, { ...options.device, clock: { ...reading, speed: 0 }, telemetryTimers: NO_TIMERS });
  const document = await documentOf(scenario, await seedsOwn.snapshot());
  const faults = device.admin?.faults.snapshot();
  if (Object.keys(document.state).length === 0 && document.underWay === undefined && faults === undefined) return null;
  return { document, ...(faults === undefined ? {} : { faults }), clock: emulatedClock(document.clock) };
}

/**
 * Puts a device just built from its seed back as `held` keeps it: its state at the document's clock,
 * its fault rules, then its clock moved on to where the held clock is now, each step of a change
 * under way taken at its own time on the way.
 *
 * @throws HttpProblem 422 when the document does not restore on the device (a state of another build).
 */
export async function restoreHeld(device: BuiltDevice, held: HeldDevice): Promise<void> {
  const { scenario } = device;
  const { document } = held;
  await restoreStateOf(device, held, '');
  const now = held.clock.read();
  const advanceMs = Math.max(0, now.elapsedMs - document.clock.elapsedMs);
  await scenario.clock.set({ now: Math.max(0, now.now - advanceMs), elapsedMs: now.elapsedMs - advanceMs, advanceMs, speed: now.speed });
}

/**
 * Checks that `held` restores on `member`'s device, on a device built for that and dropped: what a
 * fleet's `PUT /_chutebox/state` asks of each device before it changes any.
 *
 * @throws HttpProblem 422 naming each field that does not fit from `at` (`body.devices.router-3.document.state.networks[0].ssid`).
 */
export async function checkHeld(
  options: HeldOptions & { functions: readonly ApiFunction[] },
  member: FleetMember,
  held: HeldDevice,
  at: string,
): Promise<void> {
  const clock = { ...held.document.clock, speed: 0 };
  const scenario = memberDevice(options.scenarios, member, { ...options.device, clock, telemetryTimers: NO_TIMERS });
  const administered = () => emulatorAdmin({ functions: options.functions, scenario });
  await restoreStateOf({ member, scenario, admin: undefined, administered }, held, at);
}

/** `held`'s state and fault rules on `device`, at the document's clock; a refusal names its fields from `at`. */
async function restoreStateOf(device: BuiltDevice, held: HeldDevice, at: string): Promise<void> {
  const { scenario } = device;
  const { document } = held;
  const state = nestedPath(at, 'document.state');
  await restoreDocument(scenario, await scenario.snapshot(), { ...document, clock: { ...document.clock, speed: 0 } }, state);
  if (held.faults !== undefined) {
    const { faults } = await device.administered();
    faults.restore(await faults.prepare(held.faults, nestedPath(at, 'faults')));
  }
}
