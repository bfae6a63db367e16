import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { fixedAccount, fixedPolicy } from '../../runtime/auth/index.ts';
import type { ChangeLogBound } from '../../runtime/changes/bound.ts';
import { apiApp, type ApiFunction, type ApiOptions } from '../../runtime/http/api.ts';
import { documentOperations } from '../faults/operations.ts';
import { listen } from '../../runtime/http/listen.ts';
import { mountFunctions } from '../../runtime/http/mount-functions.ts';
import { allFunctions } from '../all-functions.ts';
import { EMULATOR_ACCOUNT, validation } from '../app.ts';
import type { ClockPatch, ClockReading } from '../emulated-clock.ts';
import type { FaultRuleInput } from '../faults/rule.ts';
import { DEFAULT_SEED } from '../seeded.ts';
import { createFleet, type Fleet, type FleetDevice } from './fleet.ts';
import { fleetApp, type FleetAppOptions } from './fleet-app.ts';
import { fakeController, type FakeController } from '../scenario/fake-controller.ts';
import { loadFleetScenarios } from './member-device.ts';
import { limitedFetch, PROVISION_SPREAD_MS, provisionFleet, type FleetOutbound } from './outbound.ts';
import { fleetClock } from './fleet-clock.ts';
import { fleetFaults, type FleetFaults } from './fleet-faults.ts';
import { fleetState, type FleetState, type FleetStateApi } from './fleet-state.ts';
import { deviceId, type FleetShare, type FleetSpec } from './members.ts';

/** A fleet of emulated routers and how it is served (docs/emulator.md#a-fleet). */
export interface FleetServerOptions
  extends Pick<ApiOptions, 'answered' | 'logs' | 'eventClients' | 'uploadLimit'>,
    Pick<FleetAppOptions, 'corsOrigin' | 'domain'> {
  /** How many devices. */
  size: number;
  /** The fleet's seed: each device's seed, scenario and identity are drawn from it (default `DEFAULT_SEED`). */
  seed?: number;
  /** The scenarios the devices run, by share; default every device `default`. */
  scenarios?: readonly FleetShare[];
  /** Fault rules every device starts with (each device's own copy: `/devices/<id>/_chutebox/faults`). */
  faults?: readonly FaultRuleInput[];
  /** Whether requests need credentials (log in as `EMULATOR_ACCOUNT` on any device); default true. */
  auth?: boolean;
  /** How long each step of a chute change takes, in milliseconds (default 200). */
  changeDelayMs?: number;
  changeLog?: ChangeLogBound;
  /** A real controller's base URL for every device's provisioning and telemetry; default the built-in fake controller. */
  controller?: string;
  /** Whether the devices' living networks stand still. */
  still?: boolean;
  eventBuffer?: number;
  /** Folder of the function bundles; default `functions/` beside this bundle. */
  functionsDir?: string;
  /** Checks requests and answers against the OpenAPI document, as `chutebox emulate --validate` (`true`) or `--validate-log` (`'log'`). */
  validate?: boolean | 'log';
  /**
   * Whether every device provisions itself with the controller at start (then sends it telemetry at
   * its interval), each at a time drawn within `provisionSpreadMs` (default 60 s, telemetry's default
   * interval), at most `outboundConcurrency` (default 64) at once; default true.
   */
  provision?: boolean;
  provisionSpreadMs?: number;
  outboundConcurrency?: number;
  /**
   * How many devices are kept built at most (default `FLEET_BUILT_MOST`); the least recently used that
   * nothing holds leaves, held as what differs from its seed's, and is built again as it was when asked for.
   */
  mostBuilt?: number;
  /** A device that nothing used or held for this many ms leaves (default `FLEET_IDLE_MS`; 0: none leaves for that). */
  idleMs?: number;
}

/** How many events each device of a fleet keeps for clients that reconnect, unless told (one device keeps 1000). */
export const FLEET_EVENT_BUFFER = 100;

/**
 * A fleet as an HTTP app (`fleetApp`) over its devices (`createFleet`), the scenarios loaded once:
 * what `chutebox emulate --fleet` and `startFleet` serve.
 *
 * @throws ScenarioError for a scenario that does not exist or does not check.
 */
export async function fleetServer(
  options: FleetServerOptions,
): Promise<{ app: Hono; fleet: Fleet; outbound(): FleetOutbound | null; reset(): Promise<void>; clock: ReturnType<typeof fleetClock>; state: FleetStateApi }> {
  const spec = { size: options.size, seed: options.seed ?? DEFAULT_SEED, scenarios: options.scenarios ?? [{ scenario: 'default', share: 1 }] };
  const functionsDir = path.resolve(options.functionsDir ?? fileURLToPath(new URL('./functions/', import.meta.url)));
  const functions = await mountFunctions(functionsDir, await allFunctions(functionsDir));
  const concurrency = options.outboundConcurrency ?? 64;
  // One built-in controller for the whole fleet: it counts what every device sent.
  const fake = fakeController({ routers: spec.size });
  const device = {
    ...(options.changeDelayMs === undefined ? {} : { changeDelayMs: options.changeDelayMs }),
    ...(options.changeLog === undefined ? {} : { changeLog: options.changeLog }),
    ...(options.controller === undefined
      ? { fakeController: fake }
      : { controller: options.controller, controllerFetch: limitedFetch(globalThis.fetch, concurrency) }),
    eventBuffer: options.eventBuffer ?? FLEET_EVENT_BUFFER,
    ...(options.still === undefined ? {} : { still: options.still }),
  };
  // The fleet's own routes take the account with a policy of their own; each device signs its own tokens.
  const accounts = options.auth === false ? null : await fixedAccount(EMULATOR_ACCOUNT);
  const auth = accounts === null ? null : fixedPolicy(accounts);
  const rules = fleetRules(spec, functions, () => fleet);
  const clock = fleetClock(() => fleet);
  const fleet: Fleet = createFleet({
    clock: () => clock.read(),
    spec,
    scenarios: await loadFleetScenarios(spec),
    functions,
    device,
    ...(options.faults ? { faults: options.faults } : {}),
    rulesFor: (member) => rules.rulesFor(member),
    accounts,
    ...(options.mostBuilt === undefined ? {} : { mostBuilt: options.mostBuilt }),
    ...(options.idleMs === undefined ? {} : { idleMs: options.idleMs }),
  });
  const api = apiApp(functions, { auth, ...pick(options, ['corsOrigin', 'uploadLimit', 'answered', 'logs', 'eventClients']) });
  api.fetch = await validation(api.fetch, { validate: options.validate, functionsDir, auth, corsOrigin: options.corsOrigin });
  /** The whole fleet as started: no rule of the fleet, its clock as started, every device as its scenario loads it. */
  const reset = async () => {
    await rules.clear();
    clock.reset();
    await fleet.reset();
  };
  const state = fleetState({ fleet, rules, clock });
  let outbound: FleetOutbound | null = null;
  const controller = () => ({
    controller: options.controller ?? 'built-in',
    devices: outbound?.progress() ?? { provisioned: 0, failed: 0, waiting: 0 },
    ...(options.controller === undefined ? { received: receivedOf(fake) } : {}),
  });
  return {
    app: fleetApp({
      fleet,
      api,
      auth,
      corsOrigin: options.corsOrigin,
      domain: options.domain,
      validated: options.validate !== undefined && options.validate !== false,
      controller,
      admin: { faults: rules, clock, state, reset },
    }),
    fleet,
    reset,
    clock,
    state,
    outbound: () =>
      options.provision === false
        ? null
        : (outbound ??= provisionFleet({ fleet, controller: options.controller, spreadMs: options.provisionSpreadMs ?? PROVISION_SPREAD_MS, concurrency })),
  };
}

/** How `startFleet` serves a fleet: the fleet and where it listens. */
export interface StartFleetOptions extends FleetServerOptions {
  /** Port to listen on; default 0, a free one. */
  port?: number;
  /** Address to listen on; default `127.0.0.1`. */
  host?: string;
}

/** A fleet of emulated routers listening over HTTP. */
export interface RunningFleet {
  /** Its base URL: the fleet's list at `/_chutebox/fleet`, each device below `/devices/<id>/`. */
  url: string;
  size: number;
  seed: number;
  /** The base URL of the device at `index` (its API under `/api/v1`, its admin routes under `/_chutebox`). */
  deviceUrl(index: number): string;
  /** How many devices are built now: at most `mostBuilt`, but those held built (a stream, a websocket, a provisioning under way). */
  built(): number;
  /** Every device back to its scenario as loaded, no rule of the fleet, the fleet's clock as started: `POST /_chutebox/state/reset`. */
  reset(): Promise<void>;
  /** The whole fleet's state, as `GET /_chutebox/state` answers it: its clock, its rules and each device that differs from its seed's. */
  snapshot(): Promise<FleetState>;
  /** The fleet put in a state `snapshot()` gave, as `PUT /_chutebox/state`: checked whole first. @throws HttpProblem 422 naming each field that does not fit. */
  restore(state: FleetState): Promise<void>;
  /** The fleet's clock, as `/_chutebox/clock`: a set applies to every device. */
  clock(): Promise<ClockReading>;
  setClock(patch: ClockPatch): Promise<ClockReading>;
  /** Stops listening. */
  stop(): Promise<void>;
}

/**
 * Starts a fleet of emulated routers in this process, as `chutebox emulate --fleet` does: each device
 * built on its first request, its own writes, clock and fault rules.
 *
 * @example
 * const fleet = await startFleet({ size: 100, seed: 7, auth: false });
 * await fetch(`${fleet.deviceUrl(42)}/api/v1/chutes`); // router-42's chutes
 * await fleet.stop();
 */
export async function startFleet(options: StartFleetOptions): Promise<RunningFleet> {
  const { app, fleet, outbound, reset, clock, state } = await fleetServer(options);
  const server = await listen(app, { host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const provisioning = outbound();
  return {
    url: server.url,
    size: fleet.spec.size,
    seed: fleet.spec.seed,
    deviceUrl: (index) => `${server.url}/devices/${deviceId(index)}`,
    built: () => fleet.built(),
    reset,
    snapshot: () => state.snapshot(),
    restore: (given) => state.restore(given),
    clock: async () => clock.read(),
    setClock: (patch) => clock.set(patch),
    stop: () => {
      provisioning?.stop();
      fleet.stop();
      return server.close();
    },
  };
}

/** The options of `from` that are set, by name. */
function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((key) => from[key] !== undefined).map((key) => [key, from[key]])) as Partial<Pick<T, K>>;
}

/** What the built-in controller received, without the last report's body. */
function receivedOf(fake: FakeController) {
  const { checks, reports, routers, lastRouterId } = fake.log();
  return { checks, reports, routers, lastRouterId };
}

/** The fleet's fault rules, put on the devices they target: those built or held now (each held one built again), and the others as they are built. */
function fleetRules(spec: FleetSpec, functions: readonly ApiFunction[], fleet: () => Fleet): FleetFaults {
  /** Every device built or held now: a held one is built again, its rules as it had them. */
  async function* devices(): AsyncGenerator<FleetDevice> {
    const held = [...fleet().heldDevices().keys()];
    for (const made of fleet().builtDevices()) yield await made;
    for (const id of held) yield await fleet().device(id)!;
  }
  return fleetFaults({
    spec,
    // The API's operations are every device's: the first device's document names them.
    operations: async () => documentOperations(functions, (await fleet().device(deviceId(0))!).scenario.device)(),
    async added(rule, targets) {
      for await (const device of devices()) {
        if (!targets(device.member)) continue;
        const { faults } = await device.administered();
        // A device built again meanwhile took the rule as it was built.
        if (!(await faults.list()).some((one) => one.id === rule.id)) await faults.add(rule);
      }
    },
    async removed(id) {
      for await (const { admin } of devices()) {
        if ((await admin?.faults.list())?.some((rule) => rule.id === id)) await admin!.faults.remove(id);
      }
    },
  });
}
