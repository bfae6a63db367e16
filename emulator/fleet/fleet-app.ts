import { Hono } from 'hono';
import * as z from 'zod/mini';
import { problemOutput } from '../../functions/core/handler.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { decodeBody } from '../../functions/core/body/decode.ts';
import { methodNotAllowed, noResource } from '../../functions/core/route.ts';
import { validateQuery } from '../../functions/core/validate.ts';
import type { AuthPolicy } from '../../runtime/auth/policy.ts';
import { AUTH_BINDING, DEVICE_BINDING, openEventStreams, PATH_BINDING } from '../../runtime/http/api.ts';
import { authorizer } from '../../runtime/http/auth.ts';
import { corsPolicy } from '../../runtime/http/cors.ts';
import { problemFor } from '../../runtime/http/hono-errors.ts';
import { limitedBody } from '../../runtime/http/request-body.ts';
import { silentWhileRebooting } from '../faults/silent-while-rebooting.ts';
import { ACCEPT_WEBSOCKET, type AcceptWebsocket } from '../../runtime/http/websocket-accept.ts';
import { streamedAnswer } from '../faults/fetch.ts';
import { deviceAddress } from './device-address.ts';
import type { Fleet, FleetDevice } from './fleet.ts';
import { mountFleetFaults, type FleetFaults } from './fleet-faults.ts';
import { mountClockApi } from '../clock-api.ts';
import type { EmulatedClock } from '../emulated-clock.ts';
import { adminRoutes, STATE_PATH, STATE_RESET_PATH } from '../state-api.ts';
import { checkStateText } from '../state-limits.ts';
import { FLEET_STATE_LIMITS, type FleetStateApi } from './fleet-state.ts';
import { fleetMember } from './members.ts';

/** The fleet's list of devices (issue 33's contract): `{size, devices: [{id, scenario}]}`, paged. */
export const FLEET_PATH = '/_chutebox/fleet';

/** How the fleet's devices talk to their controller (`FleetAppOptions.controller`). */
export const CONTROLLER_PATH = '/_chutebox/controller';

/** How many devices a page of `FLEET_PATH` lists by default, and at most. */
export const FLEET_PAGE = { default: 100, most: 1000 } as const;

const PAGE_RULE = { error: `must be from 1 to ${FLEET_PAGE.most}` };
const WholeNumberSchema = z.pipe(z.string().check(z.regex(/^[0-9]{1,9}$/, { error: 'must be a whole number' })), z.transform(Number));

/** The query of `FLEET_PATH`: `offset` (default 0) and `limit` (1 to `FLEET_PAGE.most`, default `FLEET_PAGE.default`). */
export const FleetPageQuerySchema = z.object({
  offset: z._default(WholeNumberSchema, 0),
  limit: z._default(z.pipe(WholeNumberSchema, z.number().check(z.minimum(1, PAGE_RULE), z.maximum(FLEET_PAGE.most, PAGE_RULE))), FLEET_PAGE.default),
});

type Fetch = Hono['fetch'];

/** What a fleet is served with: its devices, the API app they share, and who may ask. */
export interface FleetAppOptions {
  fleet: Fleet;
  /** The API app (`apiApp` with no device of its own): each request's device is bound on its `env`. */
  api: Hono;
  auth: AuthPolicy | null;
  corsOrigin?: string | undefined;
  /** Whether the API app checks requests against the OpenAPI document (reading their URLs): each is then made at its device's path. */
  validated?: boolean;
  /** Devices are also found by `Host: <id>.<domain>`; none by default. */
  domain?: string | undefined;
  /** The fleet's own admin routes: its fault rules (`/_chutebox/faults`), its clock (`/_chutebox/clock`), its state (`/_chutebox/state`) and its reset (`/_chutebox/state/reset`). */
  admin?: { faults: FleetFaults; clock: Pick<EmulatedClock, 'read' | 'set'>; state: FleetStateApi; reset(): Promise<void> };
  /** What `CONTROLLER_PATH` answers: the controller the devices provision with, how far they got, and what the built-in one received. */
  controller?: () => unknown;
}

/**
 * A fleet over HTTP: one API app for every device (the device of each request bound on its `env`,
 * `DEVICE_BINDING`), each device at `/devices/<id>/…` (and `Host: <id>.<domain>`) with its own fault
 * rules and reboots, its admin routes at `/devices/<id>/_chutebox/…`, and the fleet's list at
 * `FLEET_PATH`. A device is built on its first request.
 *
 * @example
 * const app = fleetApp({ fleet, api: apiApp(functions, { auth: null }), auth: null });
 * await app.fetch(new Request('http://fleet.test/devices/router-7/api/v1/chutes')); // router-7's chutes
 */
export function fleetApp(options: FleetAppOptions): Hono {
  const { fleet, corsOrigin } = options;
  const cors = corsPolicy(corsOrigin);
  const authorize = authorizer(options.auth, cors.listed);
  const { api } = options;
  const served = deviceFetches(api.fetch, corsOrigin);
  const admins = adminFetches(options.auth, corsOrigin);

  const front = new Hono();
  front.get(FLEET_PATH, async (c) => {
    await authorize(c);
    const page = validateQuery(FleetPageQuerySchema, c.req.query());
    const end = Math.min(fleet.spec.size, page.offset + page.limit);
    const devices = [];
    for (let index = page.offset; index < end; index++) {
      const { id, scenario } = fleetMember(fleet.spec, index);
      devices.push({ id, scenario });
    }
    return c.json({ size: fleet.spec.size, devices }, 200, { 'cache-control': 'no-store', ...cors.headers(c.req.header('origin')) });
  });
  if (options.admin !== undefined) mountFleetAdmin(front, options.admin, options);
  const { controller } = options;
  if (controller !== undefined) {
    front.get(CONTROLLER_PATH, async (c) => {
      await authorize(c);
      return c.json(controller(), 200, { 'cache-control': 'no-store', ...cors.headers(c.req.header('origin')) });
    });
  }
  front.notFound((c) => problemResponse(noResource(c.req.path)));
  front.onError((error) => problemResponse(error));

  /** `request` answered by the device `id` names, at `path` of its own API (`forwarded`: the request at that path). */
  async function toDevice(request: Request, env: unknown, context: Parameters<Fetch>[2], id: string, path: string, prefixed: boolean): Promise<Response> {
    const found = fleet.device(id);
    if (found === null) return problemResponse(new HttpProblem(404, `no device ${id} in this fleet of ${fleet.spec.size} (see ${FLEET_PATH})`));
    const device = await found;
    const admin = path.startsWith('/_chutebox/');
    if (admin || !READS.has(request.method)) device.wrote();
    // Built while it answers, while its answer streams, and while a websocket it accepts is open.
    const release = device.hold();
    try {
      return heldWhileStreamed(await answerOf(device, request, heldSockets(env, device), context, path, prefixed, admin), release);
    } catch (error) {
      release();
      throw error;
    }
  }

  /** The device's answer to `request`, made at `path` of its own API. */
  function answerOf(device: FleetDevice, request: Request, env: unknown, context: Parameters<Fetch>[2], path: string, prefixed: boolean, admin: boolean) {
    if (admin) return admins(device)(prefixed ? atPath(request, path) : request, env, context);
    // A layer that reads the request's URL (fault rules, validation) sees it at the device's path; else the
    // API app is only told the path (`PATH_BINDING`), as making the request again costs a fleet's reads.
    if (!prefixed) return served(device)(request, env, context);
    if (device.admin !== undefined || options.validated === true) return served(device)(atPath(request, path), env, context);
    // Object.assign, not a spread in a literal: no hidden class made for each request (docs/performance.md#objects-made-per-device).
    return served(device)(request, Object.assign({}, env, { [PATH_BINDING]: path }), context);
  }

  // The front is what `listen` serves: its events streams are the API app's.
  openEventStreams.set(front, openEventStreams.get(api) ?? new Set());
  const frontFetch = front.fetch;
  front.fetch = (request, env, context) => {
    const path = pathOf(request.url);
    const address = deviceAddress(path, hostOf(request, env), options.domain);
    // `/devices/<id>` is the device's root, its portal's relative links below `/devices/<id>/`: sent there, as a folder is.
    if (address?.prefixed === true && address.path === '/' && !path.endsWith('/')) return withSlash(request, path);
    if (address !== null) return toDevice(request, env, context, address.id, address.path, address.prefixed);
    return frontFetch(request, env, context);
  };
  return front;
}

/**
 * The fleet's admin routes on its front app: fault rules, clock, and the whole fleet's state: `GET
 * /_chutebox/state` answers it, `PUT` restores one (204; a body over `FLEET_STATE_LIMITS.bytes` is a
 * 413, a state that does not fit a 422 naming each field, and nothing changes), `POST
 * /_chutebox/state/reset` puts the fleet back as started.
 */
function mountFleetAdmin(front: Hono, admin: NonNullable<FleetAppOptions['admin']>, options: Pick<FleetAppOptions, 'auth' | 'corsOrigin'>): void {
  mountFleetFaults(front, admin.faults, options);
  mountClockApi(front, { clock: admin.clock, auth: options.auth, corsOrigin: options.corsOrigin });
  const { authorize, answer } = adminRoutes(options);
  const readText = limitedBody(FLEET_STATE_LIMITS.bytes, (c) => c.req.text());
  front.get(STATE_PATH, async (c) => (await authorize(c), answer(c, 200, await admin.state.snapshot())));
  front.put(STATE_PATH, async (c) => {
    await authorize(c);
    const text = await readText(c);
    checkStateText(text, 'body', FLEET_STATE_LIMITS.values);
    await admin.state.restore(decodeBody(c.req.header('content-type'), text, FLEET_STATE_LIMITS.bytes), 'body');
    return answer(c, 204);
  });
  front.all(STATE_PATH, (c) => {
    throw methodNotAllowed(c.req.method, 'GET, PUT');
  });
  front.post(STATE_RESET_PATH, async (c) => (await authorize(c), await admin.reset(), answer(c, 204)));
}

/** Each device's `fetch`: the shared API app with the device bound, silent while it reboots, its fault rules outermost. */
function deviceFetches(api: Fetch, corsOrigin: string | undefined): (device: FleetDevice) => Fetch {
  const made = new WeakMap<FleetDevice, Fetch>();
  return (device) => {
    let fetch = made.get(device);
    if (fetch === undefined) {
      const { scenario } = device;
      // Object.assign, not a spread in a literal: no hidden class made for each request (docs/performance.md#objects-made-per-device).
      const bound: Fetch = (request, env, context) =>
        api(request, Object.assign({}, env, { [DEVICE_BINDING]: scenario.device, [AUTH_BINDING]: device.auth ?? undefined }), context);
      const silent = silentWhileRebooting(bound, scenario.rebooting);
      let faulting: Fetch | undefined;
      // Its fault rules once it has an admin (most devices never get one).
      fetch = (request, env, context) => {
        if (device.admin === undefined) return silent(request, env, context);
        faulting ??= device.admin.faulting(silent, corsOrigin);
        return faulting(request, env, context);
      };
      made.set(device, fetch);
    }
    return fetch;
  };
}

/** Each device's admin routes (state, clock, faults): an app made on the device's first admin request, as most devices never get one. */
function adminFetches(auth: AuthPolicy | null, corsOrigin: string | undefined): (device: FleetDevice) => Fetch {
  const made = new WeakMap<FleetDevice, Fetch>();
  return (device) => {
    let fetch = made.get(device);
    if (fetch === undefined) {
      const app = device.administered().then((admin) => {
        const admitting = new Hono();
        admin.mount(admitting, { auth: auth === null ? null : device.auth, corsOrigin });
        admitting.notFound((c) => problemResponse(noResource(c.req.path)));
        admitting.onError((error) => problemResponse(error));
        return admitting;
      });
      fetch = async (request, env, context) => (await app).fetch(request, env, context);
      made.set(device, fetch);
    }
    return fetch;
  };
}

/** The methods that only read a device: any other may change its state. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `response` with `release` called once its body ends or is cancelled when it streams (the events, a chute's log), else now. */
function heldWhileStreamed(response: Response, release: () => void): Response {
  // The type first: reading `body` of @hono/node-server's answer makes it a whole Fetch Response, which it then writes slowly.
  if (!streamedAnswer(response) || response.body === null) {
    release();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        release();
        controller.close();
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** `env` whose websocket acceptance (an upgrade's) keeps `device` built, and tells it written, for as long as the websocket is open. */
function heldSockets(env: unknown, device: FleetDevice): unknown {
  const accept = (env as { [ACCEPT_WEBSOCKET]?: AcceptWebsocket } | undefined)?.[ACCEPT_WEBSOCKET];
  if (accept === undefined) return env;
  const held: AcceptWebsocket = (open) =>
    accept((ws) => {
      const release = device.hold();
      device.wrote();
      return open(ws).finally(release);
    });
  return { ...(env as object), [ACCEPT_WEBSOCKET]: held };
}

/** The request's `Host`: from Node's request where it came over HTTP (the Fetch `Headers` of the whole request are made only without one). */
function hostOf(request: Request, env: unknown): string | null {
  const incoming = (env as { incoming?: { headers: Record<string, string | string[] | undefined> } } | undefined)?.incoming;
  if (incoming === undefined) return request.headers.get('host');
  const host = incoming.headers.host;
  return typeof host === 'string' ? host : null;
}

/** The path of an absolute URL, as sent (percent-encoded), without parsing the whole URL. */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const end = url.search(/[?#]/);
  return url.slice(start, end < start ? undefined : end);
}

/** A permanent redirect of `request` to `path` with a slash after it, its query kept. */
function withSlash(request: Request, path: string): Response {
  const query = request.url.indexOf('?');
  return new Response(null, { status: 308, headers: { location: `${path}/${query < 0 ? '' : request.url.slice(query)}` } });
}

/** The same request at another path of the same origin, its query kept. */
function atPath(request: Request, path: string): Request {
  const url = new URL(request.url);
  url.pathname = path;
  const body = request.method === 'GET' || request.method === 'HEAD' ? null : request.body;
  return new Request(url, { method: request.method, headers: request.headers, body, signal: request.signal, duplex: 'half' } as RequestInit);
}

/** An error as the API answers it: a problem document. */
function problemResponse(error: unknown): Response {
  const out = problemOutput(problemFor(error));
  return new Response(out.body, { status: out.status, headers: out.headers });
}
