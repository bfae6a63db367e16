import type { Hono } from 'hono';
import { inputPath } from '../functions/core/problem.ts';
import type { AuthPolicy } from '../runtime/auth/policy.ts';
import type { ApiFunction } from '../runtime/http/api.ts';
import { mountClockApi } from './clock-api.ts';
import type { EmulatorState } from './emulator-state.ts';
import type { DeviceFault } from './faults/device-fault.ts';
import { mountFaultsApi } from './faults/api.ts';
import { faultEngine, type FaultEngine } from './faults/engine.ts';
import { faultingFetch } from './faults/fetch.ts';
import { documentOperations } from './faults/operations.ts';
import type { FaultRuleInput } from './faults/rule.ts';
import { FaultsStateSchema } from './faults/state.ts';
import type { Scenario } from './scenario/core.ts';
import { mountStateApi } from './state-api.ts';

/** The device faults of a device whose rules hold none now: one shared, empty list. */
const NO_DEVICE_FAULTS: readonly DeviceFault[] = Object.freeze([]);

/** What the emulator's own parts are made for: the app's functions, the scenario, and the fault rules it starts with. */
export interface EmulatorAdminOptions {
  functions: readonly ApiFunction[];
  scenario: Scenario;
  /** The fault rules as loaded (a reset goes back to them), checked here: a 422 names each bad field from `faults`. */
  faults?: readonly FaultRuleInput[] | undefined;
  /** The rules a reset goes back to, asked at the reset (a fleet's device: the fleet's rules that hold on it then); default `faults`. */
  resetRules?: () => Promise<readonly FaultRuleInput[]>;
}

/** The emulator's state (the scenario's and the fault rules'), its rules, and how an app serves them. */
export interface EmulatorAdmin {
  state: Pick<Scenario, 'snapshot' | 'restore' | 'reset'>;
  /** The rules; `activeDeviceFaults()` answers the device faults that hold now. */
  faults: FaultEngine;
  /** The device faults of the rules that hold now, each with `at`, when it began on the device's clock: what `faultyDevice` reads. */
  deviceFaults(): readonly DeviceFault[];
  /** Mounts `/_chutebox/state`, `/_chutebox/clock` and `/_chutebox/faults` on an app made by `apiApp`, behind its auth policy. */
  mount(app: Hono, options: { auth: AuthPolicy | null; corsOrigin?: string | undefined }): void;
  /** `fetch` with the fault rules applied (`faultingFetch`): the app's outermost layer. */
  faulting(fetch: Hono['fetch'], corsOrigin: string | undefined): Hono['fetch'];
}

/**
 * The emulator's own parts beside the device API: its state (the scenario's, with the fault rules in
 * `faults`) and the fault rules (docs/decisions/0051-fault-rules.md), whose windows are read on the
 * device's emulated clock (`elapsedMs`: a reset starts it again, a restore sets it to the state's). Made
 * before the app, so that the device the app serves may read the rules' device faults.
 *
 * @throws HttpProblem 422 naming each field of `faults` that does not check.
 * @example
 * const admin = await emulatorAdmin({ functions, scenario, faults: [{ effect: { status: 503 } }] });
 * const app = apiApp(functions, { device: scenario.device, auth, corsOrigin });
 * admin.mount(app, { auth, corsOrigin });
 * app.fetch = admin.faulting(app.fetch, corsOrigin);
 */
export async function emulatorAdmin(options: EmulatorAdminOptions): Promise<EmulatorAdmin> {
  const { scenario } = options;
  const { clock } = scenario;
  const faults = faultEngine({
    elapsedMs: () => clock.read().elapsedMs,
    seed: scenario.seed,
    operations: documentOperations(options.functions, scenario.device),
  });
  await faults.addAll(options.faults ?? [], 'faults');
  faults.loaded();
  const state: EmulatorAdmin['state'] = {
    snapshot: async () => ({ ...(await scenario.snapshot()), faults: faults.snapshot() }),
    async restore(given: EmulatorState, at = '') {
      // The rules are made ready first (an operationId looked up): a state they refuse changes nothing.
      const rules = (given as Partial<EmulatorState> | null)?.faults;
      const parsed = rules === undefined ? undefined : FaultsStateSchema.safeParse(rules);
      const prepared = parsed?.success ? await faults.prepare(parsed.data, inputPath(at, ['faults'])) : undefined;
      await scenario.restore(given, at);
      if (prepared !== undefined) faults.restore(prepared);
    },
    async reset() {
      await scenario.reset();
      if (options.resetRules === undefined) return faults.reset();
      const rules = await options.resetRules();
      await faults.clear();
      await faults.addAll(rules, 'faults');
    },
  };
  return {
    state,
    faults,
    deviceFaults() {
      // Asked at every device call: nothing is made while no rule is held.
      if (faults.empty) return NO_DEVICE_FAULTS;
      const active = faults.activeDeviceFaults();
      if (active.length === 0) return NO_DEVICE_FAULTS;
      const { now, elapsedMs } = clock.read();
      return active.map(({ fault, sinceMs }) => ({ ...fault, at: fault.at ?? now - (elapsedMs - sinceMs) }));
    },
    mount(app, { auth, corsOrigin }) {
      mountStateApi(app, { state, auth, corsOrigin });
      mountClockApi(app, { clock, auth, corsOrigin });
      mountFaultsApi(app, { faults, auth, corsOrigin });
    },
    faulting: (fetch, corsOrigin) => faultingFetch(fetch, faults, { corsOrigin }),
  };
}
