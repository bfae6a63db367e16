import { http, type RequestHandler } from 'msw';
import type { Hono } from 'hono';
import { emulatorApp, type EmulatorAppOptions } from './app.ts';
import type { EmulatorStateApi } from './emulator-state.ts';

/** How `chuteboxHandlers` answers: the router's base URL and the emulated router's options. */
export interface ChuteboxHandlersOptions extends Omit<EmulatorAppOptions, 'settings'> {
  /** The URL the code under test calls the router at, e.g. `http://router.test`; requests under it are answered. */
  baseUrl: string;
}

/** msw request handlers for an emulated router, with its state (the router is made on the first request or state call). */
export type ChuteboxHandlers = RequestHandler[] & EmulatorStateApi;

/**
 * msw 2 request handlers that answer every request under `baseUrl` with an emulated router, run in
 * this process: the same functions, HTTP layer, auth and admin API as `chutebox emulate`, without a
 * port (msw hands each request to the app's `fetch`). The array also carries the router's state:
 * `reset()` between tests.
 *
 * @example
 * const handlers = chuteboxHandlers({ baseUrl: 'http://router.test', scenario: 'default', auth: false });
 * const server = setupServer(...handlers);
 * server.listen();
 * await fetch('http://router.test/api/v1/chutes'); // the scenario's chutes
 * await handlers.reset();
 */
export function chuteboxHandlers(options: ChuteboxHandlersOptions): ChuteboxHandlers {
  const base = new URL(options.baseUrl);
  if (base.pathname !== '/' || base.search !== '' || base.hash !== '') {
    throw new TypeError(`baseUrl must be an origin such as http://router.test, not ${options.baseUrl}: the API's paths are its own`);
  }
  let router: Promise<{ app: Hono; scenario: EmulatorStateApi }> | undefined;
  const started = () => (router ??= emulatorApp(options));
  const handlers = [http.all(`${base.origin}/*`, async ({ request }) => (await started()).app.fetch(request))];
  return Object.assign(handlers, {
    snapshot: async () => (await started()).scenario.snapshot(),
    restore: async (state: Parameters<EmulatorStateApi['restore']>[0]) => (await started()).scenario.restore(state),
    reset: async () => (await started()).scenario.reset(),
  });
}
