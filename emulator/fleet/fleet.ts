import type { ApiFunction } from '../../runtime/http/api.ts';
import { emulatorAdmin, type EmulatorAdmin } from '../admin.ts';
import type { ScenarioOptions, Scenario } from '../scenario/core.ts';
import type { FaultRuleInput } from '../faults/rule.ts';
import { memberById, type FleetMember, type FleetSpec } from './members.ts';
import { memberDevice, type FleetScenarios } from './member-device.ts';

/** One device of a fleet as built: its member, its emulated device and the emulator's parts beside it (state, clock, fault rules). */
export interface FleetDevice {
  member: FleetMember;
  scenario: Scenario;
  admin: EmulatorAdmin;
}

/** How every device of a fleet is emulated: the scenario options they share, and the fault rules each starts with. */
export interface FleetOptions {
  spec: FleetSpec;
  scenarios: FleetScenarios;
  /** The app's functions: the fault rules look operations up in them. */
  functions: readonly ApiFunction[];
  device?: Omit<ScenarioOptions, 'seed' | 'deviceFaults'>;
  faults?: readonly FaultRuleInput[];
}

/** The devices of a fleet, each built when first asked for (docs/decisions/0055-a-fleet-of-emulated-routers.md). */
export interface Fleet {
  spec: FleetSpec;
  /** The device `id` names, built on first use; null for an id that is not one of the fleet. */
  device(id: string): Promise<FleetDevice> | null;
  /** How many devices have been built so far. */
  built(): number;
}

/**
 * A fleet whose devices are built when first asked for, each from its member (its seed and scenario)
 * over the shared scenarios, with fault rules of its own and its device faults read from them.
 *
 * @example
 * const fleet = createFleet({ spec, scenarios: await loadFleetScenarios(spec), functions });
 * const router = await fleet.device('router-42'); // built now, kept from then on
 */
export function createFleet(options: FleetOptions): Fleet {
  const built = new Map<string, Promise<FleetDevice>>();
  return {
    spec: options.spec,
    device(id) {
      const known = built.get(id);
      if (known !== undefined) return known;
      const member = memberById(options.spec, id);
      if (member === null) return null;
      const made = buildDevice(options, member);
      built.set(id, made);
      // A device that failed to build is tried again on the next request.
      made.catch(() => built.delete(id));
      return made;
    },
    built: () => built.size,
  };
}

/** The device faults of a device whose admin is not made yet. */
const NO_FAULTS: readonly never[] = Object.freeze([]);

/** The member's device and its admin, the device's faults read from the admin's rules. */
async function buildDevice(options: FleetOptions, member: FleetMember): Promise<FleetDevice> {
  let admin: EmulatorAdmin | undefined;
  const scenario = memberDevice(options.scenarios, member, { ...options.device, deviceFaults: () => admin?.deviceFaults() ?? NO_FAULTS });
  admin = await emulatorAdmin({ functions: options.functions, scenario, faults: options.faults });
  return { member, scenario, admin };
}
