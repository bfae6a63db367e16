import type { Hono } from 'hono';
import { decodeBody } from '../functions/core/body/decode.ts';
import { methodNotAllowed } from '../functions/core/route.ts';
import { limitedBody } from '../runtime/http/request-body.ts';
import type { ClockPatch, ClockReading, EmulatedClock } from './emulated-clock.ts';
import { adminRoutes, type AdminOptions } from './state-api.ts';

/** The emulated clock: `GET` reads it, `PATCH` sets, advances or changes its speed. Only the emulator serves it. */
export const CLOCK_PATH = '/_chutebox/clock';

/** The largest body a `PATCH` of the clock takes: four numbers need far less. */
const CLOCK_BODY_LIMIT = 4096;

/** The clock of an emulated router from code, as `startEmulator` and the msw handlers give it. */
export interface ClockApi {
  /** What the clock reads: `GET /_chutebox/clock`. */
  clock(): Promise<ClockReading>;
  /**
   * Sets it as `PATCH /_chutebox/clock` does, and answers the new reading once every timer an
   * advance passed has run.
   *
   * @throws HttpProblem 422 naming each field that is wrong; nothing changes then.
   */
  setClock(patch: ClockPatch): Promise<ClockReading>;
}

/**
 * Mounts the clock's admin route on the emulator's HTTP app, behind the API's auth policy:
 * - `GET /_chutebox/clock`: 200 and `{ now, elapsedMs, speed }`;
 * - `PATCH /_chutebox/clock` with any of `{ now, elapsedMs, advanceMs, speed }` as JSON: 200 and the
 *   new reading, once an advance has run the timers it passed; a field that is wrong or unknown is a
 *   422 naming it (`body.advanceMs`), a body that is not JSON a 400 or 415, one over 4 KiB a 413, and
 *   nothing changes.
 * Another method is a 405 naming the ones allowed.
 *
 * @example
 * mountClockApi(app, { clock: scenario.clock, auth, corsOrigin });
 */
export function mountClockApi(app: Hono, options: AdminOptions & { clock: Pick<EmulatedClock, 'read' | 'set'> }): void {
  const { authorize, answer } = adminRoutes(options);
  const readText = limitedBody(CLOCK_BODY_LIMIT, (c) => c.req.text());
  app.get(CLOCK_PATH, async (c) => {
    await authorize(c);
    return answer(c, 200, options.clock.read());
  });
  app.patch(CLOCK_PATH, async (c) => {
    await authorize(c);
    const patch = decodeBody(c.req.header('content-type'), await readText(c), CLOCK_BODY_LIMIT);
    return answer(c, 200, await options.clock.set(patch, 'body'));
  });
  app.all(CLOCK_PATH, (c) => {
    throw methodNotAllowed(c.req.method, 'GET, PATCH');
  });
}

/** `ClockApi` over the clock of a router that `started` gives (made on first use, as the msw handlers make theirs). */
export function clockApi(started: () => Promise<{ clock: Pick<EmulatedClock, 'read' | 'set'> }>): ClockApi {
  return {
    clock: async () => (await started()).clock.read(),
    setClock: async (patch) => (await started()).clock.set(patch),
  };
}
