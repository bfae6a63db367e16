import { emulatorApp, type EmulatorAppOptions } from './app.ts';
import { http, type RequestHandler } from 'msw';
import { routerHandlers, MSW_BINDINGS, originOf, type ChuteboxHandlers } from './msw-router.ts';
import { deviceId } from './fleet/members.ts';
import { fleetServer, type FleetServerOptions, type RunningFleet } from './fleet/start-fleet.ts';

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

/** How `chuteboxFleetHandlers` answers: the fleet's base URL and the fleet's options. */
export interface ChuteboxFleetHandlersOptions extends FleetServerOptions {
  /** The URL the code under test calls the fleet at, e.g. `http://fleet.test`: each device below `/devices/<id>/`. */
  baseUrl: string;
}

/** msw handlers for a fleet, with the fleet's state (`snapshot`, `restore`, `reset`), its clock and each device's base URL. */
export type ChuteboxFleetHandlers = RequestHandler[] & Pick<RunningFleet, 'snapshot' | 'restore' | 'reset' | 'clock' | 'setClock' | 'deviceUrl'>;

/**
 * msw 2 request handlers that answer every request under `baseUrl` with a fleet of emulated routers
 * run in this process, as `startFleet` serves it but without a port: each device at
 * `<baseUrl>/devices/<id>/…`, the fleet's list and admin routes at `<baseUrl>/_chutebox/…`. The fleet is
 * made on the first request or call; its devices provision only with `provision: true`.
 *
 * @example
 * const handlers = chuteboxFleetHandlers({ baseUrl: 'http://fleet.test', size: 100, auth: false });
 * setupServer(...handlers).listen();
 * await fetch(`${handlers.deviceUrl(42)}/api/v1/chutes`); // router-42's chutes
 */
export function chuteboxFleetHandlers(options: ChuteboxFleetHandlersOptions): ChuteboxFleetHandlers {
  const base = originOf(options.baseUrl);
  let fleet: ReturnType<typeof fleetServer> | undefined;
  const started = () =>
    (fleet ??= fleetServer(options).then((server) => {
      if (options.provision === true) server.outbound();
      return server;
    }));
  const handlers = [http.all(`${base.origin}/*`, async ({ request }) => (await started()).app.fetch(request, MSW_BINDINGS))];
  return Object.assign(handlers, {
    snapshot: async () => (await started()).state.snapshot(),
    restore: async (state: Parameters<RunningFleet['restore']>[0]) => (await started()).state.restore(state),
    reset: async () => (await started()).reset(),
    clock: async () => (await started()).clock.read(),
    setClock: async (patch: Parameters<RunningFleet['setClock']>[0]) => (await started()).clock.set(patch),
    deviceUrl: (index: number) => `${base.origin}/devices/${deviceId(index)}`,
  });
}
