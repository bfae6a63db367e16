import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { DEFAULT_UPLOAD_LIMIT } from '../functions/core/body/decode.ts';
import type { Settings } from '../functions/core/device/index.ts';
import type { ChangeLogBound } from '../runtime/changes/bound.ts';
import { fixedAuth } from '../runtime/auth/index.ts';
import type { AuthPolicy } from '../runtime/auth/policy.ts';
import type { ApiOptions } from '../runtime/http/api.ts';
import { apiApp } from '../runtime/http/api.ts';
import { mountFunctions } from '../runtime/http/mount-functions.ts';
import { allFunctions } from './all-functions.ts';
import { requestCounter } from '../runtime/http/request-counts.ts';
import { emulatorAdmin, type EmulatorAdmin } from './admin.ts';
import type { FaultRuleInput } from './faults/rule.ts';
import { scenarioFromDocument } from './scenario/core.ts';
import { loadScenario, type Scenario } from './scenario/device.ts';
import type { CompiledScenario } from './scenario/tree.ts';
import type { ClockStart } from './emulated-clock.ts';
import type { DeviceFault } from './faults/device-fault.ts';
import { silentWhileRebooting } from './faults/silent-while-rebooting.ts';

/** The device faults of an emulator that has none. */
const NO_FAULTS: readonly DeviceFault[] = Object.freeze([]);

/** The emulator's one account: ParaDrop's default user, with an empty password. */
export const EMULATOR_ACCOUNT = { username: 'paradrop', password: '' } as const;

/** What an emulated router serves, and how; `answered` and `logs` as `createApp` takes them (`chutebox emulate`'s daemon log). */
export interface EmulatorAppOptions extends Pick<ApiOptions, 'answered' | 'logs'> {
  /**
   * A built-in scenario name (`default`, `gl-ar150`), a scenario folder (any path with a slash), or a
   * compiled scenario (`chutebox scenario compile DIR`, or the package's `scenarios/<name>.json`); default `default`.
   */
  scenario?: string | CompiledScenario;
  /** Whether requests need credentials (log in as `EMULATOR_ACCOUNT`); default true. */
  auth?: boolean;
  /** How long each step of a chute change takes, in milliseconds (default 200). */
  changeDelayMs?: number;
  /** How many change records it keeps, and for how long (default 200 records, 30 days, as `serve`). */
  changeLog?: ChangeLogBound;
  /** A real controller's base URL for provisioning and telemetry; default the built-in fake controller. */
  controller?: string;
  /** How many events the device keeps for clients that reconnect (default 1000, as `serve`). */
  eventBuffer?: number;
  /** The seed of everything the emulator draws (`chutebox emulate --seed`; default `DEFAULT_SEED`, 1). */
  seed?: number;
  /** Whether the living network stands still (`chutebox emulate --still`); default false. */
  still?: boolean;
  /**
   * How the emulated clock starts: `{ now, elapsedMs, speed }`, each optional (default the real time,
   * 0, 1); `/_chutebox/clock` reads and sets it later.
   */
  clock?: ClockStart;
  /** At most this many clients follow `GET /api/v1/events` at once (default 64, as `serve`). */
  eventClients?: number;
  /** Folder of the function bundles; default `functions/` beside this bundle. */
  functionsDir?: string;
  /** Allowed CORS origin(s), as `createApp` takes them; default `*`. */
  corsOrigin?: string;
  /** Largest upload, in bytes; default 512 MiB (a state a PUT of `/_chutebox/state` takes has its own limit, `STATE_LIMITS`). */
  uploadLimit?: number;
  /** What the device's `settings()` answers. */
  settings?: () => Settings;
  /**
   * Checks every request below `/api/v1` and every answer against the OpenAPI document the build made
   * (`chutebox emulate --validate`): `true` answers a request outside the document with a problem (400,
   * or 404, 405, 415) before the handlers see it; `'log'` only logs it, and the handlers answer. Either
   * way an answer that breaks the document is logged (stderr) and served unchanged. Default off.
   */
  validate?: boolean | 'log';
  /** The device faults active now, asked at every call (`ScenarioOptions.deviceFaults`); default none. */
  deviceFaults?: () => readonly DeviceFault[];
  /** How long a hanging `iw` or `hostapd_cli` is waited for, in milliseconds (serve's `--tool-timeout`); default 5 s. */
  toolTimeoutMs?: number;
  /**
   * Fault rules to start with, and to go back to at a reset (docs/emulator.md#faults): each as
   * `POST /_chutebox/faults` takes one. Checked at start: a 422 names each bad field (`faults[0].effect.status`).
   */
  faults?: readonly FaultRuleInput[];
}

/** An emulated router's app, its scenario, and the emulator's state, clock and fault rules (`EmulatorAdmin`). */
export interface EmulatorApp extends Pick<EmulatorAdmin, 'state' | 'faults'> {
  app: Hono;
  scenario: Scenario;
  clock: Scenario['clock'];
}

/**
 * An emulated router as an HTTP app: the scenario's device behind the same HTTP layer as `chutebox
 * serve` (`apiApp` over the bundles of `functionsDir`, as `createApp` mounts them), with the
 * emulator's admin API (`/_chutebox/state`, `/_chutebox/clock`, `/_chutebox/faults`) and its one
 * account, the fault rules applied before anything else sees a request. What `chutebox emulate` and
 * `startEmulator` listen with, and what `chuteboxHandlers` answers msw's requests with (`app.fetch`).
 *
 * @throws ScenarioError for a scenario that does not exist or does not check; HttpProblem 422 for `faults` that do not check.
 * @example
 * const { app, scenario } = await emulatorApp({ scenario: 'default', auth: false });
 * await app.fetch(new Request('http://router.test/api/v1/chutes')); // 200, the scenario's chutes
 */
export async function emulatorApp(options: EmulatorAppOptions = {}): Promise<EmulatorApp> {
  let admin: EmulatorAdmin | undefined;
  const scenarioOptions = {
    ...(options.changeDelayMs === undefined ? {} : { changeDelayMs: options.changeDelayMs }),
    ...(options.changeLog === undefined ? {} : { changeLog: options.changeLog }),
    ...(options.controller === undefined ? {} : { controller: options.controller }),
    ...(options.eventBuffer === undefined ? {} : { eventBuffer: options.eventBuffer }),
    ...(options.settings === undefined ? {} : { settings: options.settings }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.still === undefined ? {} : { still: options.still }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    // The rules' device faults, and any given from code: the rules are made with the app, after the device.
    // Asked at every device call: no array is made while neither holds a fault.
    deviceFaults: () => {
      const ruled = admin?.deviceFaults() ?? NO_FAULTS;
      const given = options.deviceFaults?.() ?? NO_FAULTS;
      return given.length === 0 ? ruled : ruled.length === 0 ? given : [...given, ...ruled];
    },
    ...(options.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: options.toolTimeoutMs }),
  };
  const given = options.scenario ?? 'default';
  const scenario = typeof given === 'string' ? await loadScenario(given, undefined, scenarioOptions) : scenarioFromDocument(given, scenarioOptions);
  const functionsDir = path.resolve(options.functionsDir ?? fileURLToPath(new URL('./functions/', import.meta.url)));
  const auth = options.auth === false ? null : await fixedAuth(EMULATOR_ACCOUNT, scenario.clock.now);
  const uploadLimit = options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
  const requests = requestCounter(options.answered);
  const functions = await mountFunctions(functionsDir, await allFunctions(functionsDir));
  admin = await emulatorAdmin({ functions, scenario, faults: options.faults });
  const app = apiApp(functions, {
    device: scenario.device,
    auth,
    corsOrigin: options.corsOrigin,
    uploadLimit,
    answered: requests.count,
    requestCounts: requests.counts,
    timing: scenario.clock.now,
    ...(options.logs === undefined ? {} : { logs: options.logs }),
    eventClients: options.eventClients,
  });
  admin.mount(app, { auth, corsOrigin: options.corsOrigin });
  app.fetch = await validation(app.fetch, { validate: options.validate, functionsDir, auth, corsOrigin: options.corsOrigin });
  // A rebooting device answers nothing, not even a refusal by the validation above.
  app.fetch = silentWhileRebooting(app.fetch, scenario.rebooting);
  // Outermost: a faulted answer is the rule's, not the API's, and is not checked against the document.
  app.fetch = admin.faulting(app.fetch, options.corsOrigin);
  return { app, scenario, state: admin.state, faults: admin.faults, clock: scenario.clock };
}

/**
 * `fetch` with every request below `/api/v1` and every answer checked against the OpenAPI document, as
 * `validate` asks (`EmulatorAppOptions.validate`); `fetch` itself without.
 */
export async function validation(
  fetch: Hono['fetch'],
  options: { validate: EmulatorAppOptions['validate']; functionsDir: string; auth: AuthPolicy | null; corsOrigin: string | undefined },
): Promise<Hono['fetch']> {
  const { validate, auth } = options;
  if (validate !== true && validate !== 'log') return fetch;
  // A bundle of its own (dist/validator.mjs, with ajv), loaded only with validation on: docs/decisions/0033-emulate-validate.md.
  const { validatingFetch } = await import('./openapi-validator.ts');
  return validatingFetch(fetch, {
    functionsDir: options.functionsDir,
    mode: validate === true ? 'refuse' : 'log',
    authorize: auth === null ? null : async (authorization, client) => auth.authorize(authorization, client),
    corsOrigin: options.corsOrigin,
  });
}
