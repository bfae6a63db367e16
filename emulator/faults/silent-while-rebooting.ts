import type { Hono } from 'hono';

/** Where the emulator's own API is (`/_chutebox/state`, its clock and its faults): it answers during a reboot, to end one. */
const ADMIN_PREFIX = '/_chutebox/';

/**
 * The app's `fetch` that answers nothing while `rebooting()`: over HTTP the connection is closed at
 * once without an answer (a client sees it reset, as by a device going down), and to a caller without
 * a connection (msw) it is a network error (`Response.error()`). The emulator's own API answers as
 * usual. Serve, stopped, refuses the connection instead: both are a failure without an answer
 * (docs/decisions/0052-device-faults-as-serve-answers-them.md).
 *
 * @example
 * app.fetch = silentWhileRebooting(app.fetch, scenario.rebooting);
 */
export function silentWhileRebooting(fetch: Hono['fetch'], rebooting: () => boolean): Hono['fetch'] {
  return (request, env, context) => {
    if (!rebooting() || new URL(request.url).pathname.startsWith(ADMIN_PREFIX)) return fetch(request, env, context);
    const socket = (env as { incoming?: { socket?: { destroy(): void } } } | undefined)?.incoming?.socket;
    if (socket === undefined) return Response.error();
    socket.destroy();
    // Never sent: the connection is gone (a Response.error() is no status Node's server could write).
    return new Response(null, { status: 204 });
  };
}
