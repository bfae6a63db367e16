import type { Context } from 'hono';
// hono/tiny: the same Hono with its smallest router (PatternRouter), about 6 KB less in the runtime entry.
import { Hono } from 'hono/tiny';
import { bodyLimit as limitBody } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { bodyTooLarge, DEFAULT_BODY_LIMIT, DEFAULT_UPLOAD_LIMIT, isUpload, readBody } from '../../functions/core/body.ts';
import type { Device } from '../../functions/core/device.ts';
import type { FunctionBundle, FunctionInput } from '../../functions/core/invoke.ts';
import { matchPath, methodNotAllowed, noResource, type Method } from '../../functions/core/route.ts';
import type { AuthPolicy } from '../auth/policy.ts';
import { LOGIN_PATH, mountLogin, requireAuth } from './auth.ts';
import { loadFunctions } from './functions.ts';
import { problemResponse } from './problems.ts';

/**
 * ParaDrop's websocket to a network's hostapd control socket. Served by runtime/http/websocket.ts, a
 * bundle of its own loaded on first use; the upgrade itself is taken in `listen`.
 */
export const HOSTAPD_CONTROL_PATH = '/api/v1/chutes/:chute/networks/:network/hostapd_control/ws';

/** ParaDrop's change stream, the websocket pdtools opens after each change; served as `HOSTAPD_CONTROL_PATH` is. */
export const CHANGE_STREAM_PATH = '/ws/changes/:id/stream';

export interface AppOptions {
  /** Folder of function bundles (`*.mjs`); every one found is mounted, nothing else. */
  functionsDir: string;
  device: Device;
  /** null serves everyone without credentials (and mounts no login endpoint). */
  auth: AuthPolicy | null;
  /** Allowed CORS origin(s), comma-separated; default `*`. */
  corsOrigin?: string;
  /** Largest request body in bytes; default 1 MiB. */
  bodyLimit?: number;
  /** Largest upload (a body of one of a route's `upload` media types) in bytes; default 512 MiB. */
  uploadLimit?: number;
}

/**
 * The HTTP API: every function bundle of `functionsDir` on its route, behind CORS, the auth policy
 * and a body limit (the upload limit for a route's `upload` media types), and the websockets, the
 * hostapd control (`HOSTAPD_CONTROL_PATH`) and the change stream (`CHANGE_STREAM_PATH`), upgraded by
 * `listen` and behind the same auth policy. Every error is an `application/problem+json` answer: 404 for an unknown path,
 * 405 (with `Allow`) for a known path and another method, 400/413/415 for a bad body, 500 without
 * details.
 *
 * @example
 * const app = await createApp({ functionsDir: 'dist/functions', device: createHostDevice(), auth: await localAuth(stateDir) });
 * const res = await app.request('/api/v1/info/features');
 */
export async function createApp(options: AppOptions): Promise<Hono> {
  const bundles = await loadFunctions(options.functionsDir);
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const uploadLimit = options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT;
  const routes: { method: Method; path: string }[] = bundles.map((bundle) => bundle.route);
  const app = new Hono({ strict: false });

  app.use(
    '*',
    cors({
      origin: corsOrigins(options.corsOrigin),
      allowMethods: ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type'],
      exposeHeaders: ['WWW-Authenticate', 'Retry-After', 'Allow'],
      maxAge: 600,
    }),
  );
  if (options.auth !== null) app.use('*', requireAuth(options.auth));
  const limiter = (maxSize: number) =>
    limitBody({
      maxSize,
      onError: () => {
        throw bodyTooLarge(maxSize);
      },
    });
  const limitOthers = limiter(limit);
  const limitUploads = limiter(uploadLimit);
  const uploads = bundles.filter((bundle) => bundle.route.upload !== undefined).map((bundle) => bundle.route);
  app.use('*', (c, next) => {
    const upload = uploads.some(
      (route) => route.method === c.req.method && matchPath(route.path, c.req.path) !== null && isUpload(route, c.req.header('content-type')),
    );
    return (upload ? limitUploads : limitOthers)(c, next);
  });
  if (options.auth !== null) {
    mountLogin(app, options.auth, limit);
    routes.push({ method: 'POST', path: LOGIN_PATH });
  }
  for (const bundle of bundles) {
    app.on(bundle.route.method, bundle.route.path, (c) => answer(c, bundle, options.device, limit));
  }
  app.get(HOSTAPD_CONTROL_PATH, async (c) => (await import('./websocket.ts')).hostapdControl(c, options.device));
  app.get(CHANGE_STREAM_PATH, async (c) => (await import('./websocket.ts')).changeStream(c, options.device));
  routes.push({ method: 'GET', path: HOSTAPD_CONTROL_PATH }, { method: 'GET', path: CHANGE_STREAM_PATH });

  app.notFound((c) => {
    const allowed = [...new Set(routes.filter((route) => matchPath(route.path, c.req.path) !== null).map((route) => route.method))];
    if (allowed.length === 0) return problemResponse(c, noResource(c.req.path));
    return problemResponse(c, methodNotAllowed(c.req.method, allowed.join(', ')));
  });
  app.onError((error, c) => problemResponse(c, error));
  return app;
}

async function answer(c: Context, bundle: FunctionBundle, device: Device, limit: number): Promise<Response> {
  if (isUpload(bundle.route, c.req.header('content-type'))) {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const input: FunctionInput = { params: c.req.param() as Record<string, string>, query: c.req.query(), headers: c.req.header(), body: undefined, text: '', bytes };
    const out = await bundle.invoke(input, device);
    return c.body(out.body, out.status as 200, out.headers);
  }
  const text = await c.req.text();
  const input: FunctionInput = {
    params: c.req.param() as Record<string, string>,
    query: c.req.query(),
    headers: c.req.header(),
    body: readBody(bundle.route, c.req.header('content-type'), text, limit),
    text,
  };
  const out = await bundle.invoke(input, device);
  return c.body(out.body, out.status as 200, out.headers);
}

function corsOrigins(setting: string | undefined): string | string[] {
  const origins = (setting ?? '*').split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');
  if (origins.length === 0 || origins.includes('*')) return '*';
  return origins.length === 1 ? origins[0]! : origins;
}
