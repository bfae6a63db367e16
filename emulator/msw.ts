import { emulatorApp, type EmulatorAppOptions } from './app.ts';
import { routerHandlers, type ChuteboxHandlers } from './msw-router.ts';

export type { ChuteboxHandlers } from './msw-router.ts';

/** How `chuteboxHandlers` answers: the router's base URL and the emulated router's options. */
export interface ChuteboxHandlersOptions extends Omit<EmulatorAppOptions, 'settings'> {
  /** The URL the code under test calls the router at, e.g. `http://router.test`; requests under it are answered. */
  baseUrl: string;
}

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
 * await handlers.faults.add({ match: { path: '/api/v1/chutes' }, effect: { latency: { distribution: 'fixed', ms: 200 } } });
 * await handlers.reset();
 *
 * In a browser (the package's `browser` condition, dist/lib-msw.browser.mjs) `chuteboxHandlers` is
 * emulator/msw-browser.ts's: the same app on a compiled scenario given as a document.
 */
export function chuteboxHandlers(options: ChuteboxHandlersOptions): ChuteboxHandlers {
  return routerHandlers(options.baseUrl, () => emulatorApp(options));
}
