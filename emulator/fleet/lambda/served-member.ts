import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod/mini';
import type { Device } from '../../../functions/core/device/index.ts';
import { HttpProblem } from '../../../functions/core/problem.ts';
import type { ClockReading } from '../../emulated-clock.ts';
import type { EmulatorState } from '../../emulator-state.ts';
import type { Scenario, ScenarioOptions } from '../../scenario/core.ts';
import { apitokenKey, type ApitokenMemory } from '../../scenario/provisioning.ts';
import { draw } from '../../seeded.ts';
import { memberDevice, type FleetScenarios } from '../member-device.ts';
import type { FleetMember } from '../members.ts';
import { DeviceDocumentSchema, documentOf, NO_TIMERS, restoreDocument, type DeviceDocument } from '../device-document.ts';
import type { DeviceStore, Stored } from './device-store.ts';

/** A fleet as one Lambda instance serves it: loaded once per instance (emulator/fleet/lambda/fleet-device.ts). */
export interface LambdaFleet {
  scenarios: FleetScenarios;
  store: DeviceStore;
  /** When the fleet started (`fleetOrigin`): every device's replay starts then. */
  origin: number;
  /** What every device is served with (`CHUTEBOX_CHANGE_DELAY`, `CHUTEBOX_CONTROLLER`). */
  device: Pick<ScenarioOptions, 'changeDelayMs' | 'controller'>;
}

/** How many times a request runs on a device that other requests keep changing before it is answered 503. */
export const MOST_ATTEMPTS = 10;

/** The longest wait before an attempt, in ms: each attempt waits up to twice as long as the one before, from 10 ms. */
const MOST_BACKOFF_MS = 1000;

/** How `serveMember` serves a use besides a request: the outbound handler's. */
export interface ServeOptions {
  /** What a batch read found of the device: the first attempt uses it rather than reading again. */
  stored?: Stored | null;
  /** How this use's devices reach the controller, in place of the fleet's (the outbound replays its exchanges on a rerun). */
  device?: Pick<ScenarioOptions, 'fakeController' | 'controllerFetch'>;
}

/**
 * Serves one request on a member of the fleet, as one Lambda invocation: reads what the table holds
 * of it, builds its device at the time of the invocation, runs `use` on it, and writes its new state
 * back when the request changed it, naming the version it read. When another request wrote between,
 * the write is refused and the request runs again, on the device as that one left it, after a wait
 * drawn from the request's id; after `MOST_ATTEMPTS` a 503 tells the client to try again. Nothing of
 * the device is left running once it answers: its clock stands still during the invocation. The
 * apitoken of the device's provisioning is kept in the item beside the state (`DeviceStore.write`),
 * never in it.
 *
 * @param requestId API Gateway's id of the request: the waits between attempts are drawn from it.
 * @throws HttpProblem 503 (`Retry-After: 1`) when every attempt found the device changed meanwhile.
 * @example
 * const out = await serveMember(fleet, memberById(spec, 'router-42')!, event.requestContext.requestId, (device) => invoke(input, device));
 */
export async function serveMember<T>(
  fleet: LambdaFleet,
  member: FleetMember,
  requestId: string,
  use: (device: Device, scenario: Scenario) => Promise<T>,
  options: ServeOptions = {},
): Promise<T> {
  for (let attempt = 1; attempt <= MOST_ATTEMPTS; attempt++) {
    if (attempt > 1) await backoff(requestId, attempt);
    const stored = attempt === 1 && options.stored !== undefined ? options.stored : await fleet.store.read(member.id);
    const device = await storedDevice(fleet, member, stored, options.device);
    const before = await device.kept();
    const answer = await use(device.scenario.device, device.scenario);
    const after = await device.kept();
    if (sameState(before, after) || (await fleet.store.write(member.id, after.document, stored?.version ?? null, after.apitoken))) return answer;
  }
  throw new HttpProblem(503, `${member.id} was changed by other requests during each of ${MOST_ATTEMPTS} tries of this one: try again`, {
    headers: { 'retry-after': '1' },
  });
}

/** A member's device as stored, at the time of the invocation, and what to store of it. */
interface StoredDevice {
  scenario: Scenario;
  /** What to store of the device now, once the steps due now are taken. */
  kept(): Promise<Kept>;
}

/** What the table keeps of a device: the document of its state, and the apitoken of its provisioning beside it. */
interface Kept {
  document: DeviceDocument;
  apitoken?: string;
}

/**
 * The member's device, built from its seed and scenario with its clock at the time of the
 * invocation, standing still, and with the state stored restored on it: at the time it was stored,
 * its changes under way carried on from there, each step at its own time, up to the invocation's.
 *
 * @throws Error when the stored document does not restore on the device.
 */
async function storedDevice(fleet: LambdaFleet, member: FleetMember, stored: Stored | null, options: ServeOptions['device'] = {}): Promise<StoredDevice> {
  const now = invocationTime(fleet.origin);
  // Telemetry's timers never fire on Lambda: the outbound handler sends the reports. The apitoken of
  // the stored provisioning goes in with the state, and the one stored by now comes out.
  const apitokens: ApitokenMemory = new Map();
  const scenario = memberDevice(fleet.scenarios, member, { ...fleet.device, ...options, clock: now, telemetryTimers: NO_TIMERS, apitokens });
  const base = await scenario.snapshot();
  if (stored !== null) {
    const document = storedDocument(member, stored.document);
    const provisioning = provisioningOf(base, document);
    if (provisioning !== null && stored.apitoken !== undefined) apitokens.set(apitokenKey(provisioning), stored.apitoken);
    await restore(scenario, member, base, document);
    await scenario.clock.set({ advanceMs: Math.max(0, now.now - document.clock.now) });
  }
  return {
    scenario,
    async kept() {
      const document = await documentOf(scenario, base);
      const provisioning = provisioningOf(base, document);
      const apitoken = provisioning === null ? undefined : apitokens.get(apitokenKey(provisioning));
      return apitoken === undefined ? { document } : { document, apitoken };
    },
  };
}

/** The provisioning of the state `document` holds: its own when it differs from the seed's, else the seed's. */
function provisioningOf(base: EmulatorState, document: DeviceDocument): EmulatorState['provisioning'] {
  return Object.hasOwn(document.state, 'provisioning') ? (document.state.provisioning ?? null) : base.provisioning;
}

/** The clock of a device on Lambda during an invocation: the real time, standing still, and the time since the fleet started. */
function invocationTime(origin: number): ClockReading {
  // Lambda's device clock is the real one, read once an attempt.
  const now = Date.now();
  return { now, elapsedMs: Math.max(0, now - origin), speed: 0 };
}

/** A document read from the table, checked as one the functions write. */
function storedDocument(member: FleetMember, document: unknown): DeviceDocument {
  const checked = DeviceDocumentSchema.safeParse(document);
  if (!checked.success) throw new Error(`the fleet's table holds no state of ${member.id} it can read: ${z.prettifyError(checked.error)}`);
  return checked.data as DeviceDocument;
}

/** Restores a stored state; a refusal is the table's fault, not the request's (a 500). */
async function restore(scenario: Scenario, member: FleetMember, base: EmulatorState, document: DeviceDocument): Promise<void> {
  try {
    await restoreDocument(scenario, base, document);
  } catch (error) {
    throw new Error(`the state the fleet's table holds of ${member.id} does not restore: ${(error as Error).message}`);
  }
}

/** Whether a device keeps the same state and apitoken, whatever its clock. */
function sameState(before: Kept, after: Kept): boolean {
  return isDeepStrictEqual({ ...before, document: { ...before.document, clock: null } }, { ...after, document: { ...after.document, clock: null } });
}

/** Waits before attempt `attempt` (from 2): up to 10 ms × 2^(attempt − 2), at most `MOST_BACKOFF_MS`, drawn from the request's id. */
function backoff(requestId: string, attempt: number): Promise<void> {
  const most = Math.min(MOST_BACKOFF_MS, 10 * 2 ** (attempt - 2));
  return new Promise((resolve) => setTimeout(resolve, Math.ceil(draw(0, 'backoff', requestId, attempt) * most)));
}
