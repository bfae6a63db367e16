import { createHmac, randomBytes } from 'node:crypto';
import { inputPath } from '../../functions/core/problem.ts';
import { invalidInput } from '../../functions/core/validate.ts';
import { fixedPolicy, type KeptAccounts } from '../../runtime/auth/fixed.ts';
import type { AuthPolicy, UserTable } from '../../runtime/auth/policy.ts';
import type { ApiFunction } from '../../runtime/http/api.ts';
import { emulatorAdmin, type EmulatorAdmin } from '../admin.ts';
import type { ClockStart } from '../emulated-clock.ts';
import type { ScenarioOptions, Scenario } from '../scenario/core.ts';
import type { FaultRuleInput } from '../faults/rule.ts';
import { memberById, type FleetMember, type FleetSpec } from './members.ts';
import { memberDevice, type FleetScenarios } from './member-device.ts';
import { asHeld, checkHeld, restoreHeld, type HeldDevice } from './held-device.ts';
import { heldReports, nextReportAt } from './held-reports.ts';

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
  /** Keeps it built until the function answered is called: a request, a stream or a websocket on it, a provisioning under way. */
  hold(): () => void;
  /** Tells that its state may differ from its seed's now (a request other than a read, an admin request): it is looked at when it leaves. */
  wrote(): void;
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
  /** How many devices are kept built at most (default `FLEET_BUILT_MOST`): the least recently used that nothing holds leaves first. */
  mostBuilt?: number;
  /** A device that nothing used or held for this many ms leaves (default `FLEET_IDLE_MS`; 0: none leaves for that). */
  idleMs?: number;
}

/** How many devices a fleet keeps built unless told: a fleet of 10,000 read in turn is never built twice (docs/performance.md#a-fleet). */
export const FLEET_BUILT_MOST = 10_000;

/**
 * How long a device nothing uses stays built unless told: a controller that polls each device every
 * few minutes finds it built, and so does a load that walks 10,000 devices (docs/performance.md#a-fleet).
 */
export const FLEET_IDLE_MS = 180_000;

/** How often the devices built are looked at for those idle, at most: a device leaves within this of its idle time. */
const IDLE_LOOK_MS = 10_000;

/** How many held devices are built at once to send their reports. */
const HELD_REPORTS_AT_ONCE = 64;

/** The devices of a fleet, each built when first asked for (docs/decisions/0055-a-fleet-of-emulated-routers.md). */
export interface Fleet {
  spec: FleetSpec;
  /** The device `id` names, built on first use; null for an id that is not one of the fleet. */
  device(id: string): Promise<FleetDevice> | null;
  /**
   * Runs `work` on the device `id` names, holding it: the work the fleet does on its own (a
   * provisioning, a report). A device built for it leaves again once it is done, unless a request
   * used it meanwhile.
   */
  visit<T>(id: string, work: (device: FleetDevice) => Promise<T>): Promise<T>;
  /** How many devices are built now. */
  built(): number;
  /** The devices built now (or being built). */
  builtDevices(): Promise<FleetDevice>[];
  /** The devices that left the devices kept built and differ from their seed's, by id: built again from these when asked for. */
  heldDevices(): ReadonlyMap<string, HeldDevice>;
  /** Every device that differs from its seed's, as held, by id in index order: those held, and those built taken as held without leaving. */
  differing(): Promise<Map<string, HeldDevice>>;
  /** Every device back to its scenario as loaded: those built are reset (telemetry stopped) and forgotten, those held forgotten. */
  reset(): Promise<void>;
  /**
   * Checks that each device of `devices` is one of the fleet and that its state restores on it, on a
   * device built for that and dropped; nothing changes.
   *
   * @throws HttpProblem 422 naming the fields of the first device refused, from `at` (`body.devices.router-3.document.state…`).
   */
  check(devices: ReadonlyMap<string, HeldDevice>, at: string): Promise<void>;
  /** Every device held as `devices` (checked by `check`) gives it, the others back to their seed's as on `reset`, their tokens and passwords kept. */
  restore(devices: ReadonlyMap<string, HeldDevice>): Promise<void>;
  /** Stops what the fleet does on its own, as its server stops: idle devices leaving, held devices' reports, built devices' telemetry. */
  stop(): void;
}

/** A device in the set kept built: what it is being built into, and what the set knows of it. */
interface Entry {
  made: Promise<FleetDevice>;
  device: FleetDevice | undefined;
  /** What holds it now (`FleetDevice.hold`), and how many holds it had: a device used while looked at to leave stays. */
  holds: number;
  uses: number;
  /** When it was last asked for, held or let go (`performance.now()`): it leaves once idle for `idleMs`. */
  usedAt: number;
  wrote: boolean;
}

/**
 * A fleet whose devices are built when first asked for, each from its member (its seed and scenario)
 * over the shared scenarios, with fault rules of its own and its device faults read from them. At
 * most `mostBuilt` are kept built: beyond that the least recently used that nothing holds leaves,
 * and so does one idle for `idleMs`, held only as what differs from its seed's (`asHeld`), and is
 * built again as it was when next asked for (docs/decisions/0065-a-fleet-keeps-a-bounded-set-of-devices-built.md).
 * A held device that is provisioned is built again when its next telemetry report falls due, reports,
 * and leaves again (`heldReports`; docs/decisions/0073-a-fleet-device-leaves-when-idle.md).
 *
 * @example
 * const fleet = createFleet({ spec, scenarios: await loadFleetScenarios(spec), functions });
 * const router = await fleet.device('router-42'); // built now, kept while among the most recently used
 */
export function createFleet(options: FleetOptions): Fleet {
  const most = options.mostBuilt ?? FLEET_BUILT_MOST;
  const idleMs = options.idleMs ?? FLEET_IDLE_MS;
  // In the order they were last used, the least recently first.
  const entries = new Map<string, Entry>();
  const held = new Map<string, HeldDevice>();
  const reports = heldReports({ clockOf: (id) => held.get(id)?.clock, report: reportHeld, concurrency: HELD_REPORTS_AT_ONCE });
  let trimming = false;
  let sweeping = false;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let accounts = keptAccounts();

  /** The member's device built (and restored as held, when it is), at the back of the set. */
  function enter(member: FleetMember): Entry {
    const record = held.get(member.id);
    // Not held while it is built: a set of the fleet's clock reaches it once it is.
    held.delete(member.id);
    const entry: Entry = {
      made: Promise.resolve(undefined as never),
      device: undefined,
      holds: 0,
      uses: 0,
      usedAt: performance.now(),
      wrote: record !== undefined,
    };
    entry.made = buildDevice(options, member, Object.assign(marks(entry), { kept: accounts(member.id) }), record).then((device) => {
      entry.device = device;
      void trim();
      armIdle();
      return device;
    });
    entries.set(member.id, entry);
    // A device that failed to build is tried again on the next request.
    entry.made.catch(() => {
      if (entries.get(member.id) === entry) entries.delete(member.id);
      if (record !== undefined) held.set(member.id, record);
    });
    return entry;
  }

  /** Devices leave, the least recently used first, until no more than `most` are built or none may leave. */
  async function trim(): Promise<void> {
    if (trimming) return;
    trimming = true;
    try {
      for (let looked = entries.size; entries.size > most && looked > 0; looked--) {
        const [id, entry] = entries.entries().next().value!;
        // Looked at now: to the back, whether it leaves or not.
        entries.delete(id);
        entries.set(id, entry);
        if (entry.device !== undefined && entry.holds === 0) await leave(id, entry);
      }
    } finally {
      trimming = false;
    }
  }

  /** Looks, every `IDLE_LOOK_MS` (or half of `idleMs`) while devices are built, for devices idle that long: they leave. */
  function armIdle(): void {
    if (idleMs === 0 || idleTimer !== undefined || stopped) return;
    idleTimer = setTimeout(
      () =>
        void sweepIdle().finally(() => {
          idleTimer = undefined;
          if (entries.size > 0) armIdle();
        }),
      Math.min(idleMs / 2, IDLE_LOOK_MS),
    );
    idleTimer.unref();
  }

  async function sweepIdle(): Promise<void> {
    if (sweeping) return;
    sweeping = true;
    try {
      const before = performance.now() - idleMs;
      for (const [id, entry] of [...entries]) if (entry.device !== undefined && entry.holds === 0 && entry.usedAt <= before) await leave(id, entry);
    } finally {
      sweeping = false;
    }
  }

  /**
   * The device of `entry` leaves, held as what differs from its seed's, its telemetry stopped and its
   * next report kept for `reports`; it stays when used, held or moved meanwhile.
   */
  async function leave(id: string, entry: Entry): Promise<void> {
    const device = entry.device!;
    if (!entry.wrote && device.admin === undefined) return void entries.delete(id);
    const uses = entry.uses;
    let moved = false;
    const unwatch = device.scenario.clock.onChange(() => void (moved = true));
    const found = await asHeld(options, device).finally(unwatch);
    const reportAt = found?.document.state.provisioning ? await reportTime(device) : null;
    if (entry.uses !== uses || entry.holds > 0 || moved || entries.get(id) !== entry) return;
    entries.delete(id);
    device.scenario.stop();
    if (found === null) return;
    held.set(id, found);
    if (reportAt !== null) reports.schedule(id, reportAt);
  }

  /**
   * Sends the report of the held device `id` that fell due: built for it (when a request has not built
   * it meanwhile), then let go again unless a request used it meanwhile.
   */
  async function reportHeld(id: string): Promise<void> {
    if (entries.has(id) || !held.has(id)) return;
    await visit(id, async (device) => {
      const at = await reportTime(device);
      if (at !== null && device.scenario.clock.now() >= at) await device.scenario.sendTelemetryNow();
    }).catch(() => {
      // Not built (its state would not restore): looked at again a minute later on its clock.
      const clock = held.get(id)?.clock;
      if (clock !== undefined) reports.schedule(id, clock.now() + 60_000);
    });
  }

  async function visit<T>(id: string, work: (device: FleetDevice) => Promise<T>): Promise<T> {
    const known = entries.get(id);
    const member = memberById(options.spec, id);
    if (member === null) throw new Error(`no device ${id} in the fleet`);
    const entry = known ?? enter(member);
    const device = await entry.made;
    const release = device.hold();
    const uses = entry.uses;
    try {
      return await work(device);
    } finally {
      release();
      // Were it to fail to leave, it stays built: the bound or the idle time let it go later.
      if (known === undefined && entry.uses === uses) await leave(id, entry).catch(() => {});
    }
  }

  return {
    spec: options.spec,
    device(id) {
      const known = entries.get(id);
      if (known !== undefined) {
        entries.delete(id);
        entries.set(id, known);
        known.usedAt = performance.now();
        return known.made;
      }
      const member = memberById(options.spec, id);
      return member === null ? null : enter(member).made;
    },
    visit,
    built: () => entries.size,
    builtDevices: () => [...entries.values()].map((entry) => entry.made),
    heldDevices: () => held,
    async differing() {
      const found = new Map(held);
      for (const [id, entry] of [...entries]) {
        const device = await entry.made.catch(() => undefined);
        // Only read, with no rules: its seed makes it again.
        if (device === undefined || (!entry.wrote && device.admin === undefined)) continue;
        const taken = await asHeld(options, device);
        if (taken !== null) found.set(id, taken);
      }
      const index = (id: string) => memberById(options.spec, id)!.index;
      return new Map([...found].sort(([a], [b]) => index(a) - index(b)));
    },
    async reset() {
      // As a device built anew: no token signed before is good, no password changed.
      accounts = keptAccounts();
      await forgetAll(new Map());
    },
    async check(devices, at) {
      for (const [id, device] of devices) {
        const member = memberById(options.spec, id);
        const where = inputPath(at, [id]);
        if (member === null) throw invalidInput('the state', [{ path: where, message: `names no device of this fleet of ${options.spec.size}` }]);
        await checkHeld(options, member, device, where);
      }
    },
    restore: (devices) => forgetAll(devices),
    stop() {
      stopped = true;
      if (idleTimer !== undefined) clearTimeout(idleTimer);
      reports.stop();
      for (const entry of entries.values()) entry.device?.scenario.stop();
    },
  };

  /** Every device forgotten (those built reset, their telemetry stopped), then those of `keep` held as given. */
  async function forgetAll(keep: ReadonlyMap<string, HeldDevice>): Promise<void> {
    const devices = [...entries.values()].map((entry) => entry.made);
    entries.clear();
    held.clear();
    reports.clear();
    for (const [id, device] of keep) {
      held.set(id, device);
      // Built to find when it reports next, at once: what it last reported is in its state.
      if (device.document.state.provisioning) reports.schedule(id, Number.NEGATIVE_INFINITY);
    }
    for (const device of await Promise.allSettled(devices)) if (device.status === 'fulfilled') await device.value.scenario.reset();
  }
}

/** What a device tells the set it is in: what holds it, and that it was written. */
function marks(entry: Entry): Pick<FleetDevice, 'hold' | 'wrote'> {
  return {
    hold() {
      entry.holds += 1;
      entry.uses += 1;
      entry.usedAt = performance.now();
      let released = false;
      return () => {
        if (!released) entry.holds -= 1;
        entry.usedAt = performance.now();
        released = true;
      };
    },
    wrote() {
      entry.wrote = true;
    },
  };
}

/** When the device's next telemetry report falls due on its clock (`nextReportAt`); a minute from now when its status cannot be read (a device fault). */
async function reportTime(device: FleetDevice): Promise<number | null> {
  const { scenario } = device;
  return scenario.device.provisioning.status().then(nextReportAt, () => scenario.clock.now() + 60_000);
}

/**
 * What each device's auth policy keeps while the device is not built: a token secret drawn from one
 * secret of the fleet's, random at each start, and the user table of a device whose password changed.
 */
function keptAccounts(): (id: string) => KeptAccounts {
  const secret = randomBytes(32);
  const tables = new Map<string, UserTable>();
  return (id) => ({
    secret: createHmac('sha256', secret).update(id).digest(),
    table: () => tables.get(id),
    write: (table) => void tables.set(id, table),
  });
}

/** The device faults of a device whose admin is not made yet. */
const NO_FAULTS: readonly never[] = Object.freeze([]);

/**
 * The member's device, its faults read from its admin's rules once it has an admin: made with the
 * device when the fleet gives rules to start with, else on the first admin request, as most devices
 * of a fleet never get one. A device `held` is built at its held clock and restored as held.
 */
async function buildDevice(
  options: FleetOptions,
  member: FleetMember,
  { kept, ...marked }: Pick<FleetDevice, 'hold' | 'wrote'> & { kept: KeptAccounts },
  held?: HeldDevice,
): Promise<FleetDevice> {
  // What it starts with, and what its own reset goes back to: the fleet's rules that hold on it then, not those it was built with.
  const rulesNow = async () => [...(options.faults ?? []), ...((await options.rulesFor?.(member)) ?? [])];
  const rules = await rulesNow();
  const clock = held === undefined ? options.clock?.() : { ...held.document.clock, speed: 0 };
  let making: Promise<EmulatorAdmin> | undefined;
  const device: FleetDevice = {
    member,
    // Object.assign, not spreads in a literal: one hidden class for every device (docs/performance.md#objects-made-per-device).
    scenario: memberDevice(
      options.scenarios,
      member,
      Object.assign({}, options.device, clock === undefined ? {} : { clock }, {
        deviceFaults: () => device.admin?.deviceFaults() ?? NO_FAULTS,
        // A read that renders its system configuration changes its state as a write does.
        onRendered: marked.wrote,
      }),
    ),
    admin: undefined,
    auth: null,
    administered: () =>
      (making ??= emulatorAdmin({ functions: options.functions, scenario: device.scenario, faults: rules, resetRules: rulesNow }).then(
        (admin) => (device.admin = admin),
      )),
    ...marked,
  };
  // Tokens issued and expiring on the device's own clock, as on one emulated device, and good again once it is built again.
  if (options.accounts) device.auth = fixedPolicy(options.accounts, device.scenario.clock.now, kept);
  if (rules.length > 0) await device.administered();
  if (held !== undefined) await restoreHeld(device, held);
  return device;
}
