import { listen } from '../runtime/http/listen.ts';
import { emulatorApp, type EmulatorAppOptions } from './app.ts';
import { clockApi, type ClockApi } from './clock-api.ts';
import type { EmulatorState, EmulatorStateApi } from './emulator-state.ts';
import type { FaultRules } from './faults/engine.ts';

export type { FaultRule, FaultRuleInput } from './faults/rule.ts';
export type { FaultRules } from './faults/engine.ts';
export { startFleet, type RunningFleet, type StartFleetOptions } from './fleet/start-fleet.ts';
export type { FleetState } from './fleet/fleet-state.ts';
export type { FleetShare } from './fleet/members.ts';

/** How `startEmulator` serves a router: the app's options and where it listens. */
export interface StartEmulatorOptions extends Omit<EmulatorAppOptions, 'settings'> {
  /** Port to listen on; default 0, a free one. */
  port?: number;
  /** Address to listen on; default `127.0.0.1`. */
  host?: string;
  /** A state to start from (as `snapshot()` or `GET /_chutebox/state` answered it) instead of the scenario as recorded. */
  state?: EmulatorState;
}

/** An emulated router listening over HTTP, its state and its clock. */
export interface RunningEmulator extends EmulatorStateApi, ClockApi {
  /** Its base URL, e.g. `http://127.0.0.1:41233`: the API is under `/api/v1`. */
  url: string;
  /** The name of the scenario it serves. */
  scenario: string;
  /** Stops listening (open websockets are closed). */
  stop(): Promise<void>;
  /** Its fault rules, as `/_chutebox/faults` serves them (docs/emulator.md#faults); `reset()` puts back the ones it started with. */
  faults: FaultRules;
}

/**
 * Starts an emulated router in this process, as `chutebox emulate` does: the same handlers on a
 * scenario, over HTTP, with its state at hand for a test suite (`reset()` before each test,
 * `snapshot()`/`restore()` around one) and its clock (`clock()`, `setClock(patch)`, as
 * `/_chutebox/clock`).
 *
 * @throws ScenarioError for a scenario that does not exist or does not check; HttpProblem 422 for a
 *   `state` that does not fit the scenario.
 * @example
 * const router = await startEmulator({ scenario: 'default', port: 0, auth: false });
 * await fetch(`${router.url}/api/v1/chutes`); // the scenario's chutes
 * await router.setClock({ speed: 0, advanceMs: 600_000 }); // ten minutes later, standing still
 * await router.faults.add({ match: { path: '/api/v1/chutes' }, effect: { status: 503 } }); // GET /api/v1/chutes: 503
 * await router.reset();
 * await router.stop();
 */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const { app, scenario, state, faults } = await emulatorApp(options);
  if (options.state !== undefined) await state.restore(options.state);
  const server = await listen(app, { host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  return {
    url: server.url,
    scenario: scenario.name,
    stop: () => server.close(),
    snapshot: () => state.snapshot(),
    restore: (given) => state.restore(given),
    reset: () => state.reset(),
    faults,
    ...clockApi(async () => scenario),
  };
}
