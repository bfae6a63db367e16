import { HttpProblem } from './problem.ts';

/** HTTP methods a function may answer. */
export type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

/**
 * Where a function answers. `path` uses `:name` segments for path parameters, as Hono does. The
 * bundle's name is not restated here: the build derives it from the module's file
 * (`functions/networks/network.get.ts` → `dist/functions/networks-network-get.mjs`, docs/layout.md).
 * Declared with `defineRoute`.
 */
export interface Route {
  method: Method;
  path: string;
  /**
   * Further paths answered the same way, e.g. `['/api/v1/config/new_config']` beside
   * `/api/v1/config/new-config`: one module and one bundle, mounted on every path (`routePaths`).
   */
  aliases?: readonly string[];
  /** One line for the manifest and the docs. */
  summary: string;
  /**
   * How the transport hands over the request body. `json` (the default): decoded, JSON only (415
   * otherwise), in `input.body`. `document`: a JSON or YAML document the handler decodes itself from
   * `input.text` with `decodeDocumentBody` (functions/core/body/), so only its bundle
   * carries the YAML parser; the transport still enforces the size limit.
   */
  body?: 'json' | 'document';
  /**
   * Media types the route also takes as raw bytes, e.g. `['application/x-tar']`: a body of one of them
   * is handed over undecoded in `input.bytes` (`body` undefined, `text` ''), up to the transport's
   * upload limit (`DEFAULT_UPLOAD_LIMIT`, 512 MiB) instead of the 1 MiB limit of every other body.
   */
  upload?: readonly string[];
  /**
   * How the handler answers. `json` (the default): JSON. `document`: JSON, or YAML when the `Accept`
   * header prefers one of the YAML types (`encodeDocument(…, negotiate(accept))`,
   * functions/core/body/), the answer varying with `Accept`; the OpenAPI document lists
   * every `DOCUMENT_MEDIA_TYPES` for its 200.
   */
  answer?: 'json' | 'document';
  /**
   * Answered without credentials, on a device with a password too: the login, and the API's own
   * description (the same document on every device of a version, with none of the device's data).
   */
  public?: boolean;
}

/** A method and a path in one string, as an API Gateway route key: `'GET /api/v1/chutes/:chute'`. */
export type RouteKey = `${Method} /${string}`;

/** What a route may add to its method, path and summary. */
export type RouteOptions = Pick<Route, 'aliases' | 'body' | 'upload' | 'answer' | 'public'>;

/**
 * The route of an endpoint module, declared in one line.
 *
 * @example
 * export const route = defineRoute('GET /api/v1/chutes/:chute/networks/:network', 'One network of a chute');
 * export const route = defineRoute('PUT /api/v1/chutes/:chute/config', 'Replace the chute configuration', { body: 'document' });
 */
export function defineRoute(key: RouteKey, summary: string, options: RouteOptions = {}): Route {
  const space = key.indexOf(' ');
  return { method: key.slice(0, space) as Method, path: key.slice(space + 1), summary, ...options };
}

/**
 * Every path a route answers: its `path`, then its `aliases`.
 *
 * @example
 * routePaths({ path: '/api/v1/config/new-config', aliases: ['/api/v1/config/new_config'] }) // ['/api/v1/config/new-config', '/api/v1/config/new_config']
 */
export function routePaths(route: Pick<Route, 'path' | 'aliases'>): readonly string[] {
  return route.aliases === undefined ? [route.path] : [route.path, ...route.aliases];
}

/**
 * The parameters of `path` under the first of a route's paths (`routePaths`) that matches it, or null.
 *
 * @example
 * matchRoute({ path: '/api/v1/config/new-config', aliases: ['/api/v1/config/new_config'] }, '/api/v1/config/new_config') // {}
 */
export function matchRoute(route: Pick<Route, 'path' | 'aliases'>, path: string): Record<string, string> | null {
  for (const pattern of routePaths(route)) {
    const params = matchPath(pattern, path);
    if (params !== null) return params;
  }
  return null;
}

/**
 * Matches a request path against a route pattern. A trailing slash is accepted
 * (`/api/v1/chutes/` matches `/api/v1/chutes`). Parameters come back URI-decoded.
 *
 * @example
 * matchPath('/api/v1/chutes/:chute', '/api/v1/chutes/hello') // { chute: 'hello' }
 * matchPath('/api/v1/chutes/:chute', '/api/v1/info')         // null
 */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = segments(pattern);
  const got = segments(path);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(':')) {
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return null;
      }
    } else if (w !== g) {
      return null;
    }
  }
  return params;
}

function segments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/** The 404 answer to a path no route takes. */
export function noResource(path: string): HttpProblem {
  return new HttpProblem(404, `no resource at ${path}`);
}

/** The 405 answer to a method no route of the path takes; `allow` lists the ones that do (`Allow` header). */
export function methodNotAllowed(method: string, allow: string): HttpProblem {
  return new HttpProblem(405, `${method} is not allowed here; use ${allow}`, { headers: { allow } });
}
