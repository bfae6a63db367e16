import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { DEFAULT_UPLOAD_LIMIT } from '../functions/core/body.ts';
import type { Settings } from '../functions/core/device.ts';
import { fixedAuth } from '../runtime/auth/index.ts';
import { createApp } from '../runtime/http/app.ts';
import { loadScenario, type Scenario } from './scenario-device.ts';
import { mountStateApi } from './state-api.ts';

/** The emulator's one account: ParaDrop's default user, with an empty password. */
export const EMULATOR_ACCOUNT = { username: 'paradrop', password: '' } as const;

/** What an emulated router serves, and how. */
export interface EmulatorAppOptions {
  /** A built-in scenario name (`default`, `gl-ar150`) or a scenario folder (any path with a slash); default `default`. */
  scenario?: string;
  /** Whether requests need credentials (log in as `EMULATOR_ACCOUNT`); default true. */
  auth?: boolean;
  /** How long each step of a chute change takes, in milliseconds (default 200). */
  changeDelayMs?: number;
  /** A real controller's base URL for provisioning and telemetry; default the built-in fake controller. */
  controller?: string;
  /** Folder of the function bundles; default `functions/` beside this bundle. */
  functionsDir?: string;
  /** Allowed CORS origin(s), as `createApp` takes them; default `*`. */
  corsOrigin?: string;
  /** Largest upload, and largest state a PUT of `/_chutebox/state` takes, in bytes; default 512 MiB. */
  uploadLimit?: number;
  /** What the device's `settings()` answers. */
  settings?: () => Settings;
}

/**
 * An emulated router as an HTTP app: the scenario's device behind the same HTTP layer as `chutebox
 * serve` (`createApp`), with the emulator's admin API (`/_chutebox/state`) and its one account. What
 * `chutebox emulate` and `startEmulator` listen with, and what `chuteboxHandlers` answers msw's
 * requests with (`app.fetch`).
 *
 * @throws ScenarioError for a scenario that does not exist or does not check.
 * @example
 * const { app, scenario } = await emulatorApp({ scenario: 'default', auth: false });
 * await app.fetch(new Request('http://router.test/api/v1/chutes')); // 200, the scenario's chutes
 */
export async function emulatorApp(options: EmulatorAppOptions = {}): Promise<{ app: Hono; scenario: Scenario }> {
  const scenario = await loadScenario(options.scenario ?? 'default', undefined, {
    ...(options.changeDelayMs === undefined ? {} : { changeDelayMs: options.changeDelayMs }),
    ...(options.controller === undefined ? {} : { controller: options.controller }),
    ...(options.settings === undefined ? {} : { settings: options.settings }),
  });
  const functionsDir = path.resolve(options.functionsDir ?? fileURLToPath(new URL('./functions/', import.meta.url)));
  const auth = options.auth === false ? null : await fixedAuth(EMULATOR_ACCOUNT);
  const uploadLimit = options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
  const app = await createApp({ functionsDir, device: scenario.device, auth, corsOrigin: options.corsOrigin, uploadLimit });
  mountStateApi(app, { state: scenario, auth, corsOrigin: options.corsOrigin, bodyLimit: uploadLimit });
  return { app, scenario };
}
