import type { Hono } from 'hono';
import { apiApp, type ApiOptions } from './api.ts';
import { mountFunctions } from './mount-functions.ts';

export {
  CHANGE_STREAM_PATH,
  CHUTE_LOG_SOCKET_PATHS,
  CHUTE_LOGS_PATH,
  DAEMON_LOGS_PATH,
  EVENTS_PATH,
  HOSTAPD_CONTROL_PATH,
  METRICS_PATH,
  PARADROP_LOGS_PATH,
  PASSWORD_CHANGE_PATH,
  PASSWORD_CLEAR_PATH,
} from './api.ts';

export interface AppOptions extends ApiOptions {
  /** Folder of function bundles (`*.mjs`); every one found is mounted, nothing else. */
  functionsDir: string;
}

/**
 * The HTTP API of the function bundles of `functionsDir`: `apiApp` (runtime/http/api.ts: routes, CORS,
 * auth, body limits, websockets, problem+json errors) over `mountFunctions(functionsDir)`, whose
 * routes come from the build's manifest and each bundle is imported on its first request.
 *
 * @example
 * const app = await createApp({ functionsDir: 'dist/functions', device: createHostDevice(), auth: await localAuth(stateDir) });
 * const res = await app.request('/api/v1/info/features');
 */
export async function createApp(options: AppOptions): Promise<Hono> {
  return apiApp(await mountFunctions(options.functionsDir), options);
}
