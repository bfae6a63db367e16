import { fixedPolicy } from '../../runtime/auth/fixed.ts';
import type { AuthPolicy, UserTable } from '../../runtime/auth/policy.ts';
import type { ApiFunction } from '../../runtime/http/api.ts';
import { emulatorAdmin, type EmulatorAdmin } from '../admin.ts';
import type { ClockStart } from '../emulated-clock.ts';
import type { ScenarioOptions, Scenario } from '../scenario/core.ts';
import type { FaultRuleInput } from '../faults/rule.ts';
import { memberById, type FleetMember, type FleetSpec } from './members.ts';
import { memberDevice, type FleetScenarios } from './member-device.ts';

/** One device of a fleet as built: its member, its emulated device and the emulator's parts beside it (state, clock, fault rules). */
export interface FleetDevice {
  member: FleetMember;
  scenario: Scenario;
  /** Its admin (state, clock, fault rules), once made: a device has one from its first admin request, or from the start with rules to start with. */
  admin: EmulatorAdmin | undefined;
  /** Its admin, made now if it has none yet. */
  administered(): Promise<EmulatorAdmin>;
  /** Its own auth policy (its tokens good on it alone), over the fleet's account; null without auth. */
  auth: AuthPolicy | null;
}

/** How every device of a fleet is emulated: the scenario options they share, and the fault rules each starts with. */
export interface FleetOptions {
  spec: FleetSpec;
  scenarios: FleetScenarios;
  /** The app's functions: the fault rules look operations up in them. */
  functions: readonly ApiFunction[];
  device?: Omit<ScenarioOptions, 'seed' | 'deviceFaults'>;
  /** The account every device takes (`EMULATOR_ACCOUNT`, hashed once); none serves requests without credentials (`--no-auth`). */
  accounts?: UserTable | null;
  /** Rules every device starts with (`emulate --faults FILE`). */
  faults?: readonly FaultRuleInput[];
  /** How a device's clock starts as it is built: the fleet's clock then (`fleetClock`). */
  clock?: () => ClockStart;
  /** The fleet's rules that hold on a member (`fleetFaults`), given to it as it is built. */
  rulesFor?: (member: FleetMember) => Promise<FaultRuleInput[]>;
}

/** The devices of a fleet, each built when first asked for (docs/decisions/0055-a-fleet-of-emulated-routers.md). */
export interface Fleet {
  spec: FleetSpec;
  /** The device `id` names, built on first use; null for an id that is not one of the fleet. */
  device(id: string): Promise<FleetDevice> | null;
  /** How many devices have been built so far. */
  built(): number;
  /** The devices built so far (or being built). */
  builtDevices(): Iterable<Promise<FleetDevice>>;
  /** Every device back to its scenario as loaded: those built are reset (telemetry stopped) and forgotten, to be built again when asked for. */
  reset(): Promise<void>;
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
    builtDevices: () => built.values(),
    async reset() {
      const devices = [...built.values()];
      built.clear();
      for (const device of await Promise.allSettled(devices)) if (device.status === 'fulfilled') await device.value.scenario.reset();
    },
  };
}

/** The device faults of a device whose admin is not made yet. */
const NO_FAULTS: readonly never[] = Object.freeze([]);

/**
 * The member's device, its faults read from its admin's rules once it has an admin: made with the
 * device when the fleet gives rules to start with, else on the first admin request, as most devices
 * of a fleet never get one.
 */
async function buildDevice(options: FleetOptions, member: FleetMember): Promise<FleetDevice> {
  // What it starts with, and what its own reset goes back to: the fleet's rules that hold on it then, not those it was built with.
  const rulesNow = async () => [...(options.faults ?? []), ...((await options.rulesFor?.(member)) ?? [])];
  const rules = await rulesNow();
  let making: Promise<EmulatorAdmin> | undefined;
  const device: FleetDevice = {
    member,
    scenario: memberDevice(options.scenarios, member, {
      ...options.device,
      ...(options.clock === undefined ? {} : { clock: options.clock() }),
      deviceFaults: () => device.admin?.deviceFaults() ?? NO_FAULTS,
    }),
    admin: undefined,
    auth: null,
    administered: () =>
      (making ??= emulatorAdmin({ functions: options.functions, scenario: device.scenario, faults: rules, resetRules: rulesNow }).then(
        (admin) => (device.admin = admin),
      )),
  };
  // Tokens issued and expiring on the device's own clock, as on one emulated device.
  if (options.accounts) device.auth = fixedPolicy(options.accounts, device.scenario.clock.now);
  if (rules.length > 0) await device.administered();
  return device;
}
