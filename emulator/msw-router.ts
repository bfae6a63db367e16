import { http, type RequestHandler } from 'msw';
import type { Hono } from 'hono';
import { clockApi, type ClockApi } from './clock-api.ts';
import type { EmulatedClock } from './emulated-clock.ts';
import type { EmulatorStateApi } from './emulator-state.ts';

/** msw request handlers for an emulated router, with its state and its clock (the router is made on the first request, state or clock call). */
export type ChuteboxHandlers = RequestHandler[] & EmulatorStateApi & ClockApi;

/**
 * The msw handlers of `chuteboxHandlers`, in Node and in a browser alike: every request under
 * `baseUrl` goes to the emulated router's `fetch`, made by `start` on the first request, state or
 * clock call; the array carries that router's state (`snapshot`, `restore`, `reset`) and clock
 * (`clock`, `setClock`).
 *
 * @throws TypeError for a base URL that is not an origin.
 * @example
 * const handlers = routerHandlers('http://router.test', () => emulatorApp(options));
 */
export function routerHandlers(baseUrl: string, start: () => Promise<{ app: Hono; scenario: EmulatorStateApi & { clock: EmulatedClock } }>): ChuteboxHandlers {
  const base = new URL(baseUrl);
  if (base.pathname !== '/' || base.search !== '' || base.hash !== '') {
    throw new TypeError(`baseUrl must be an origin such as http://router.test, not ${baseUrl}: the API's paths are its own`);
  }
  let router: ReturnType<typeof start> | undefined;
  const started = () => (router ??= start());
  const handlers = [http.all(`${base.origin}/*`, async ({ request }) => (await started()).app.fetch(request))];
  return Object.assign(handlers, {
    snapshot: async () => (await started()).scenario.snapshot(),
    restore: async (state: Parameters<EmulatorStateApi['restore']>[0]) => (await started()).scenario.restore(state),
    reset: async () => (await started()).scenario.reset(),
    ...clockApi(async () => (await started()).scenario),
  });
}
