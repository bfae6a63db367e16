import { delay, HttpResponse, http, type RequestHandler } from 'msw';
import type { Hono } from 'hono';
import { clockApi, type ClockApi } from './clock-api.ts';
import type { EmulatedClock } from './emulated-clock.ts';
import type { EmulatorStateApi } from './emulator-state.ts';
import type { FaultRules } from './faults/engine.ts';
import { FAULT_TRANSPORT, type FaultTransport } from './faults/fetch.ts';

/** msw request handlers for an emulated router, with its state, its clock and its fault rules (the router is made on the first request or call). */
export type ChuteboxHandlers = RequestHandler[] & EmulatorStateApi & ClockApi & { faults: FaultRules };

/** What `routerHandlers` starts: the app, its state, its clock and its fault rules. */
export interface StartedRouter {
  app: Hono;
  state: EmulatorStateApi;
  faults: FaultRules;
  clock: EmulatedClock;
}

/** How a fault rule reaches msw's client: msw's `delay`, and a network error as msw gives one. */
export const MSW_BINDINGS: { [FAULT_TRANSPORT]: Partial<FaultTransport> } = {
  [FAULT_TRANSPORT]: { sleep: (ms) => delay(ms), broken: () => HttpResponse.error() } satisfies Partial<FaultTransport>,
};

/**
 * The msw handlers of `chuteboxHandlers`, in Node and in a browser alike: every request under
 * `baseUrl` goes to the emulated router's `fetch`, made by `start` on the first request or call, with
 * msw's ways of a fault rule (`delay`, `HttpResponse.error()` for a reset connection); the array carries
 * that router's state (`snapshot`, `restore`, `reset`), its clock (`clock`, `setClock`) and its rules (`faults`).
 *
 * @throws TypeError for a base URL that is not an origin.
 * @example
 * const handlers = routerHandlers('http://router.test', () => emulatorApp(options));
 */
export function routerHandlers(baseUrl: string, start: () => Promise<StartedRouter>): ChuteboxHandlers {
  const base = originOf(baseUrl);
  let router: ReturnType<typeof start> | undefined;
  const started = () => (router ??= start());
  const handlers = [http.all(`${base.origin}/*`, async ({ request }) => (await started()).app.fetch(request, MSW_BINDINGS))];
  const faults: FaultRules = {
    add: async (rule) => (await started()).faults.add(rule),
    list: async () => (await started()).faults.list(),
    remove: async (id) => (await started()).faults.remove(id),
    clear: async () => (await started()).faults.clear(),
  };
  return Object.assign(handlers, {
    snapshot: async () => (await started()).state.snapshot(),
    restore: async (state: Parameters<EmulatorStateApi['restore']>[0]) => (await started()).state.restore(state),
    reset: async () => (await started()).state.reset(),
    faults,
    ...clockApi(started),
  });
}

/**
 * The origin of a base URL that msw handlers answer under.
 *
 * @throws TypeError for a base URL that is not an origin.
 */
export function originOf(baseUrl: string): URL {
  const base = new URL(baseUrl);
  if (base.pathname !== '/' || base.search !== '' || base.hash !== '') {
    throw new TypeError(`baseUrl must be an origin such as http://router.test, not ${baseUrl}: the API's paths are its own`);
  }
  return base;
}
