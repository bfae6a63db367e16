import type { Context, Hono } from 'hono';
import { decodeBody } from '../functions/core/body/decode.ts';
import { methodNotAllowed } from '../functions/core/route.ts';
import type { AuthPolicy } from '../runtime/auth/policy.ts';
import { authorizer } from '../runtime/http/auth.ts';
import { corsPolicy } from '../runtime/http/cors.ts';
import { limitedBody } from '../runtime/http/request-body.ts';
import type { EmulatorState } from './emulator-state.ts';
import type { Scenario } from './scenario/core.ts';
import { checkStateText, STATE_LIMITS } from './state-limits.ts';

/** The emulator's state: `GET` exports it, `PUT` imports one. Only `chutebox emulate` serves it. */
export const STATE_PATH = '/_chutebox/state';

/** `POST` puts the emulated device back to its scenario as loaded. */
export const STATE_RESET_PATH = '/_chutebox/state/reset';

/** How the emulator's admin routes are served: behind the API's auth policy, with its CORS. */
export interface AdminOptions {
  /** The policy of the rest of the API; null serves every request without credentials, if it is local (`--no-auth`, runtime/http/auth.ts). */
  auth: AuthPolicy | null;
  /** As `createApp`'s `corsOrigin`. */
  corsOrigin?: string;
}

export interface StateApiOptions extends AdminOptions {
  /** The emulated device's state (`loadScenario`'s answer). */
  state: Pick<Scenario, 'snapshot' | 'restore' | 'reset'>;
}

/** What every admin route of the emulator does first and last (`adminRoutes`). */
export interface AdminRoutes {
  /** Authorizes a request as the API does (runtime/http/auth.ts). */
  authorize: ReturnType<typeof authorizer>;
  /** An answer with `status`, a JSON `body` (not to be cached) or none, and the CORS headers. */
  answer(c: Context, status: number, body?: unknown): Response;
}

/** The authorization and the answers of the emulator's admin routes, for one auth policy and CORS setting. */
export function adminRoutes(options: AdminOptions): AdminRoutes {
  const cors = corsPolicy(options.corsOrigin);
  return {
    authorize: authorizer(options.auth, cors.listed),
    answer: (c: Context, status: number, body?: unknown) =>
      new Response(body === undefined ? null : JSON.stringify(body), {
        status,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json', 'cache-control': 'no-store' }),
          ...cors.headers(c.req.header('origin')),
        },
      }),
  };
}

/**
 * Mounts the emulator's admin API on the HTTP app (after `createApp`, before it serves), behind the
 * same auth policy as the device API:
 * - `GET /_chutebox/state`: 200 and the state (`EmulatorState`, JSON), to save or import elsewhere;
 * - `PUT /_chutebox/state` with a state as JSON: 204 once the device is in that state; a body over
 *   `STATE_LIMITS.bytes` is cut with a 413 as it streams in, a state that does not fit (another
 *   version or scenario, a bad field, over a limit of `STATE_LIMITS`) is a 422 problem naming each
 *   field (`body.networks[0].ssid`), a body that is not JSON a 400 or 415, and nothing changes;
 * - `POST /_chutebox/state/reset`: 204 once the device is back to its scenario as loaded.
 * Another method is a 405 naming the ones allowed. Errors are problems, as the rest of the API's
 * (createApp's error handler).
 *
 * @example
 * const app = await createApp({ functionsDir, device: scenario.device, auth, corsOrigin });
 * mountStateApi(app, { state: scenario, auth, corsOrigin });
 */
export function mountStateApi(app: Hono, options: StateApiOptions): void {
  const { authorize, answer } = adminRoutes(options);
  /** The request body as text, cut with a 413 as soon as it passes the limit. */
  const readText = limitedBody(STATE_LIMITS.bytes, (c) => c.req.text());

  app.get(STATE_PATH, async (c) => {
    await authorize(c);
    return answer(c, 200, await options.state.snapshot());
  });
  app.put(STATE_PATH, async (c) => {
    await authorize(c);
    const text = await readText(c);
    checkStateText(text, 'body');
    const state = decodeBody(c.req.header('content-type'), text, STATE_LIMITS.bytes);
    await options.state.restore(state as EmulatorState, 'body');
    return answer(c, 204);
  });
  app.post(STATE_RESET_PATH, async (c) => {
    await authorize(c);
    await options.state.reset();
    return answer(c, 204);
  });
  app.all(STATE_PATH, (c) => {
    throw methodNotAllowed(c.req.method, 'GET, PUT');
  });
  app.all(STATE_RESET_PATH, (c) => {
    throw methodNotAllowed(c.req.method, 'POST');
  });
}
