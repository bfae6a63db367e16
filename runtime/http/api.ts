import type { Context, Hono } from 'hono';
import type { BlankEnv, BlankSchema } from 'hono/types';
import { HonoBase } from 'hono/hono-base';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { getPathNoStrict } from 'hono/utils/url';
import { DEFAULT_BODY_LIMIT, DEFAULT_UPLOAD_LIMIT } from '../../functions/core/body/decode.ts';
import type { Device } from '../../functions/core/device/index.ts';
import type { FunctionBundle } from '../../functions/core/bundle.ts';
import type { FunctionInput, FunctionOutput } from '../../functions/core/handler.ts';
import { NO_FIELDS, problemOutput } from '../../functions/core/handler.ts';
import { matchPath, methodNotAllowed, noResource, routePaths, type Route } from '../../functions/core/route.ts';
import type { AuthPolicy } from '../auth/policy.ts';
import type { LogLines } from '../log/ring.ts';
import { authorizer, LOGIN_PATH } from './auth.ts';
import { corsPolicy } from './cors.ts';
import type { MountedFunction } from './mount-functions.ts';
import { problemFor } from './hono-errors.ts';
import type { RequestBody } from './request-body.ts';
import type { RequestCount } from './request-counts.ts';
import { incomingMessage, requestHeaders } from './request-headers.ts';

/** Where the chutes' web pages are served when `chuteWeb` is on (runtime/http/chute-proxy.ts), as ParaDrop's daemon does. */
const CHUTE_WEB_PATH = '/chutes/:chute/*';

/**
 * ParaDrop's websocket to a network's hostapd control socket. Served by runtime/http/websocket.ts, a
 * bundle of its own loaded on first use; the upgrade itself is taken in `listen`.
 */
export const HOSTAPD_CONTROL_PATH = '/api/v1/chutes/:chute/networks/:network/hostapd_control/ws';

/** ParaDrop's change stream, the websocket pdtools opens after each change; served as `HOSTAPD_CONTROL_PATH` is. */
export const CHANGE_STREAM_PATH = '/ws/changes/:id/stream';

/** Prometheus' scrape: runtime/http/metrics.ts, a bundle of its own loaded on the first one. */
export const METRICS_PATH = '/metrics';

/** A chute's log, streamed (runtime/http/chute-logs.ts, a bundle of its own loaded on first use). */
export const CHUTE_LOGS_PATH = '/api/v1/chutes/:chute/logs';

/** ParaDrop's websockets of a chute's log, served as `HOSTAPD_CONTROL_PATH` is, on any path below them as ParaDrop's daemon does. */
export const CHUTE_LOG_SOCKET_PATHS = ['/ws/chute_logs/:chute', '/sockjs/logs/:chute'] as const;

/** The daemon's own log (`ApiOptions.logs`), served by runtime/http/daemon-logs.ts, a bundle of its own loaded on first use. */
export const DAEMON_LOGS_PATH = '/api/v1/logs';

/** ParaDrop's websocket of the daemon's log, which `pdtools node watch-logs` opens; served as `HOSTAPD_CONTROL_PATH` is. */
export const PARADROP_LOGS_PATH = '/ws/paradrop_logs';

/** The device's events as Server-Sent Events: runtime/http/event-stream.ts, a bundle of its own loaded on the first request. */
export const EVENTS_PATH = '/api/v1/events';

/** The events streams open on each app, each by what ends it: `listen` ends them when it stops. */
export const openEventStreams = new WeakMap<Hono, Set<() => void>>();

/**
 * Where a request's `env` names the device it is for, when one app serves several (a fleet of emulated
 * routers): `env[DEVICE_BINDING]` is that Device, and `ApiOptions.device` is then not needed.
 */
export const DEVICE_BINDING = 'chuteboxDevice';

/** Where a request's `env` gives the path to route it by (a fleet's device: its path without `/devices/<id>`); else its URL's. */
export const PATH_BINDING = 'chuteboxPath';

/** Where a request's `env` names the auth policy of the device it is for (a fleet's: each device signs its own tokens); else `ApiOptions.auth`. */
export const AUTH_BINDING = 'chuteboxAuth';

export interface ApiOptions {
  /** The device every request is for; none for an app whose every request names its device (`DEVICE_BINDING`). */
  device?: Device;
  /** null serves every request without credentials, if it is local (runtime/http/auth.ts), and mounts no login endpoint. */
  auth: AuthPolicy | null;
  /** Allowed CORS origin(s), comma-separated; default `*`. */
  corsOrigin?: string;
  /** Largest request body in bytes; default 1 MiB. */
  bodyLimit?: number;
  /** Largest upload (a body of one of a route's `upload` media types) in bytes; default 512 MiB. */
  uploadLimit?: number;
  /** Serves the chutes' web pages at `/chutes/<chute>/` (`chuteWeb`), as a device does; off in the emulator, whose chutes run nothing. */
  chuteWeb?: boolean;
  /** At most this many clients follow `EVENTS_PATH` at once (`--events-clients`); default `DEFAULT_EVENT_CLIENTS`. */
  eventClients?: number;
  /** Told of every request the app answered (the request log, the request metrics); none by default. */
  answered?: (request: AnsweredRequest) => void;
  /**
   * The clock that times each request for `answered`, in ms; default `performance.now`. The emulator
   * times them on its emulated clock, so that its `GET /metrics` follows that clock too.
   */
  timing?: () => number;
  /** The requests counted so far (`requestCounter`, runtime/http/request-counts.ts), which `GET /metrics` exposes; none by default. */
  requestCounts?: () => readonly RequestCount[];
  /** The daemon's log, served at `DAEMON_LOGS_PATH` and `PARADROP_LOGS_PATH`; neither is mounted without it. */
  logs?: LogLines;
}

/** One answered request, as `ApiOptions.answered` is told of it. */
export interface AnsweredRequest {
  method: string;
  /** The path of the route that answered, as mounted (`/api/v1/chutes/:chute`); null when none did (a 404 or 405). */
  route: string | null;
  status: number;
  /** From the app taking the request to its answer's head (a stream's body may still be on its way). */
  seconds: number;
  /** The user whose credentials were accepted; null without credentials, or when they were refused. */
  user: string | null;
}

/**
 * A function as `apiApp` mounts it: its route, and its code (`invoke`), loaded already or on first use.
 * What `mountFunctions` gives for a folder of bundles; a bundle of every endpoint module (the browser's
 * `chuteboxHandlers`) gives its modules as loaded ones.
 */
export type ApiFunction = Pick<MountedFunction, 'route'> & {
  loaded: Pick<FunctionBundle, 'route' | 'invoke'> | undefined;
  load(): Promise<Pick<FunctionBundle, 'route' | 'invoke'>>;
};

/**
 * The HTTP API: every function of `functions` on its route (its path and aliases), with CORS, the
 * auth policy and a body limit (the upload limit for a route's `upload` media types), the events stream
 * (`EVENTS_PATH`), the websockets, the hostapd control (`HOSTAPD_CONTROL_PATH`) and the change stream
 * (`CHANGE_STREAM_PATH`), and ParaDrop's chute log websockets (`CHUTE_LOG_SOCKET_PATHS`), upgraded by
 * `listen`, a chute's log, streamed (`CHUTE_LOGS_PATH`), Prometheus' scrape (`METRICS_PATH`) and, with `logs`, the daemon's log
 * (`DAEMON_LOGS_PATH`, `PARADROP_LOGS_PATH`), behind the same auth policy. A request served without credentials must be local
 * (`authorizer`, docs/decisions/0040-browsers-and-a-device-without-a-password.md). Every error is an `application/problem+json` answer: 404
 * for an unknown path, 405 (with `Allow`) for a known path and another method, 400/413/415 for a bad
 * body, 500 without details.
 *
 * `createApp` mounts the bundles of a folder (`mountFunctions`: routes from the build's manifest, each
 * bundle imported on its first request); this takes them mounted, so that it needs no file system
 * (the browser's `chuteboxHandlers` mounts endpoint modules). A request does only what its answer
 * needs: no middleware chain, no body read for a request without one, the answer's headers as one
 * plain object (docs/decisions/0017-a-request-costs-what-its-answer-needs.md).
 *
 * @example
 * const app = apiApp(await mountFunctions('dist/functions'), { device: createHostDevice(), auth: await localAuth(stateDir) });
 * const res = await app.request('/api/v1/info/features');
 */
export function apiApp(functions: readonly ApiFunction[], options: ApiOptions): Hono {
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const uploadLimit = options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
  const cors = corsPolicy(options.corsOrigin);
  /** The policy of the device `c` is for: its own where its `env` names one (a fleet's), else the app's. */
  const policyOf = (c: Context): AuthPolicy | null => (c.env as Record<string, AuthPolicy | undefined> | undefined)?.[AUTH_BINDING] ?? options.auth;
  const authorize = authorizer(options.auth === null ? null : policyOf, cors.listed);
  /** `authorize` as a promise, for the pages that wait for it (docs, preflight). */
  const authorized = async (c: Context) => authorize(c);
  const given = options.device;
  /** The device `c` is for: the one its `env` names (a fleet's), else the app's. */
  const deviceOf = (c: Context): Device => {
    const device = (c.env as Record<string, Device | undefined> | undefined)?.[DEVICE_BINDING] ?? given;
    if (device === undefined) throw new Error('apiApp: a request for no device (neither ApiOptions.device nor env.chuteboxDevice)');
    return device;
  };
  // Every method and path answered, a route's aliases included, for the 404 and 405 answers.
  const routes: Pick<Route, 'method' | 'path'>[] = functions.flatMap((fn) => routePaths(fn.route).map((path) => ({ method: fn.route.method, path })));
  // Hono with its one-regular-expression router: a request is matched in one step, not route by route.
  // Routed by the path its `env` gives (`PATH_BINDING`), else its URL's, a trailing slash not counting (Hono's non-strict routing).
  const app: Hono = new HonoBase<BlankEnv, BlankSchema, '/'>({
    router: new RegExpRouter(),
    getPath: (request, given) => (given?.env as Record<string, string | undefined> | undefined)?.[PATH_BINDING] ?? getPathNoStrict(request),
  });

  /**
   * The answer, with the CORS headers of the request's `Origin` (from `requestHeaders`: reading it
   * through `c.req.header` would build a Fetch `Headers` of the whole request).
   */
  const send = (c: Context, out: FunctionOutput, origin = requestHeaders(c).origin) =>
    new Response(bodyOf(out), { status: out.status, headers: cors.answerHeaders(out.headers, origin) as Record<string, string> });
  let bodies: Promise<RequestBody> | undefined;
  /** Reading bodies: runtime/http/request-body.ts, a bundle of its own loaded on the first request with one. */
  const body = () => (bodies ??= import('./request-body.ts').then((module) => module.requestBody(limit, uploadLimit)));

  /** Answers `c` with `fn`: its bundle loaded on the first request, the body read when there is one. */
  function respond(c: Context, fn: ApiFunction, withParams: boolean): Promise<Response> {
    const headers = requestHeaders(c);
    const input: FunctionInput = {
      params: withParams ? (c.req.param() as Record<string, string>) : NO_FIELDS,
      query: queryOf(c),
      headers,
      body: undefined,
      text: '',
    };
    const out = fn.loaded === undefined || hasBody(fn.route.method, headers) ? invokeLoaded(c, fn, input) : fn.loaded.invoke(input, deviceOf(c));
    return out.then((done) => send(c, done, headers.origin));
  }
  /** `fn`'s answer to `input` once its bundle is loaded and the body read. */
  async function invokeLoaded(c: Context, fn: ApiFunction, input: FunctionInput): Promise<FunctionOutput> {
    const bundle = fn.loaded ?? (await fn.load());
    return bundle.invoke(hasBody(fn.route.method, input.headers) ? await (await body()).readInto(input, c, bundle.route) : input, deviceOf(c));
  }

  /**
   * `answer` on `route`, told to `options.answered` when set: timed, with its error answered here so
   * that its status is known. `answer` authorizes the request itself when `authorizing` is false.
   */
  function observed(route: string | null, answer: (c: Context, user: string | null) => Response | Promise<Response>, authorizing = true) {
    const told = options.answered;
    const timing = options.timing ?? (() => performance.now());
    const authorized = (c: Context) => (authorizing ? authorize(c) : null);
    if (told === undefined) {
      return (c: Context) => {
        const user = authorized(c);
        return user instanceof Promise ? user.then((known) => answer(c, known)) : answer(c, user);
      };
    }
    // No `await` of what is known at once: each would cost the request a turn of the microtask queue.
    return (c: Context): Promise<Response> => {
      const start = timing();
      let user: string | null = null;
      const tell = (response: Response) => {
        told({ method: c.req.method, route, status: response.status, seconds: (timing() - start) / 1000, user });
        return response;
      };
      const failed = (error: unknown) => tell(send(c, problemOutput(problemFor(error))));
      try {
        const known = authorized(c);
        const answered = known instanceof Promise ? known.then((found) => answer(c, (user = found))) : answer(c, (user = known));
        return answered instanceof Promise ? answered.then(tell, failed) : Promise.resolve(tell(answered));
      } catch (error) {
        return Promise.resolve(failed(error));
      }
    };
  }

  for (const fn of functions) {
    // One handler on the route's path and each of its aliases; Hono is asked for path parameters only on a route that has them.
    const paths = routePaths(fn.route);
    const withParams = paths.some((path) => path.includes(':'));
    app.on(
      fn.route.method,
      [...paths],
      observed(fn.route.path, (c) => respond(c, fn, withParams), fn.route.public !== true),
    );
  }
  if (options.auth !== null) {
    // The login: runtime/http/login.ts, a bundle loaded on the first one.
    const login = async (c: Context) => send(c, await (await import('./login.ts')).login(c, policyOf(c)!, await body()));
    app.post(LOGIN_PATH, observed(LOGIN_PATH, login, false));
    routes.push({ method: 'POST', path: LOGIN_PATH });
  }
  /** A websocket's route: runtime/http/websocket.ts, a bundle of its own loaded on first use. */
  const socket = (name: 'hostapdControl' | 'changeStream' | 'chuteLogSocket') => async (c: Context) => (await import('./websocket.ts'))[name](c, deviceOf(c));
  // The routes answered by a bundle loaded on first use, behind the same auth policy: the events stream, the websockets, the chute logs, the metrics and the daemon's log.
  const events = { open: new Set<() => void>(), clients: options.eventClients, cors };
  openEventStreams.set(app, events.open);
  const loaded: [string, (c: Context) => Promise<Response>][] = [
    [EVENTS_PATH, async (c) => (await import('./event-stream.ts')).eventStream(c, { ...events, device: deviceOf(c) })],
    [HOSTAPD_CONTROL_PATH, socket('hostapdControl')],
    [CHANGE_STREAM_PATH, socket('changeStream')],
    [CHUTE_LOGS_PATH, async (c) => (await import('./chute-logs.ts')).chuteLogs(c, deviceOf(c), cors)],
    [METRICS_PATH, async (c) => (await import('./metrics.ts')).metrics(c, deviceOf(c), options.requestCounts)],
    ...CHUTE_LOG_SOCKET_PATHS.map((path): [string, (c: Context) => Promise<Response>] => [`${path}/*`, socket('chuteLogSocket')]),
  ];
  const { logs } = options;
  if (logs !== undefined) {
    loaded.push(
      [DAEMON_LOGS_PATH, async (c) => (await import('./daemon-logs.ts')).daemonLogs(c, logs, cors.headers(requestHeaders(c).origin))],
      [PARADROP_LOGS_PATH, async (c) => (await import('./websocket.ts')).paradropLogs(c, logs)],
    );
  }
  for (const [path, answer] of loaded) {
    app.get(path, observed(path, answer));
    routes.push({ method: 'GET', path });
  }
  if (options.chuteWeb === true) {
    // The chute's page needs no credentials of the API (runtime/http/chute-proxy.ts says why).
    // It matches `/chutes/<chute>` too, which the proxy redirects to `/chutes/<chute>/`.
    app.all(
      CHUTE_WEB_PATH,
      observed(CHUTE_WEB_PATH, async (c) => (await import('./chute-proxy.ts')).chuteWeb(c, deviceOf(c)), false),
    );
  }
  // The API reference page and its files (runtime/http/docs.ts, a bundle loaded on first use; the page behind the same auth).
  app.get(
    '/docs/*',
    observed('/docs/*', async (c) => (await import('./docs.ts')).docs(c, authorized), false),
  );
  // A preflight, on any path (runtime/http/preflight.ts, a bundle loaded on the first one).
  app.on(
    'OPTIONS',
    '*',
    observed('*', async (c) => (await import('./preflight.ts')).preflight(c, authorized, cors), false),
  );

  const notFound = observed(
    null,
    (c) => {
      const allowed = [...new Set(routes.filter((route) => matchPath(route.path, c.req.path) !== null).map((route) => route.method))];
      return send(c, problemOutput(allowed.length === 0 ? noResource(c.req.path) : methodNotAllowed(c.req.method, allowed.join(', '))));
    },
    false,
  );
  app.notFound(notFound);
  app.onError((error, c) => send(c, problemOutput(problemFor(error))));
  return app;
}

/** What is written for an answer: its UTF-8 when the core made it, else its body; none for a 304 (a Fetch `Response` of that status must have none). */
function bodyOf(out: FunctionOutput): string | Uint8Array | null {
  return out.status === 304 ? null : (out.bytes ?? out.body);
}

/** The request's query; none asked of Hono (which would parse the URL) when its target has no `?`. */
function queryOf(c: Context): Record<string, string> {
  return incomingMessage(c)?.url?.includes('?') === false ? NO_FIELDS : c.req.query();
}

/**
 * Whether a request carries a body. Over HTTP/1.1 only one with `Content-Length` or
 * `Transfer-Encoding` does; a GET without either is answered without touching the body, which would
 * build a whole Fetch `Request` for it.
 */
function hasBody(method: string, headers: Record<string, string>): boolean {
  if (method !== 'GET' && method !== 'DELETE') return true;
  return headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined;
}
