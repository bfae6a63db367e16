// The answer to a CORS preflight: a bundle of its own (dist/preflight.mjs), loaded on the first one,
// as a browser keeps the answer for ten minutes.
import type { Context } from 'hono';
import type { HttpProblem } from '../../functions/core/problem.ts';
import type { CorsPolicy } from './cors.ts';
import { requestHeaders } from './request-headers.ts';

/** Methods and request headers a browser may use across origins. */
const ALLOW_METHODS = 'GET,PUT,POST,PATCH,DELETE,OPTIONS';
const ALLOW_HEADERS = 'Authorization,Content-Type';
const MAX_AGE_SECONDS = '600';

/**
 * `OPTIONS` on any path, without credentials: a browser sends none with a preflight. It is refused as
 * its request would be (`authorize`): a page of another origin while requests are served without
 * credentials gets a 403 and no CORS allowance (docs/decisions/0040-browsers-and-a-device-without-a-password.md);
 * a 401 only says that the request will need credentials, and is no refusal. Else a 204 with what
 * CORS allows the request's `Origin`.
 *
 * @throws HttpProblem 403 or 429 from `authorize`.
 * @example
 * app.on('OPTIONS', '*', async (c) => (await import('./preflight.ts')).preflight(c, authorize, cors));
 */
export async function preflight(c: Context, authorize: (c: Context) => Promise<unknown>, cors: CorsPolicy): Promise<Response> {
  await authorize(c).catch((error: HttpProblem) => {
    if (error.status !== 401) throw error;
  });
  return new Response(null, { status: 204, headers: preflightHeaders(cors, requestHeaders(c).origin) });
}

/**
 * The headers of a `204` answer to a preflight from `origin`, as Hono's cors middleware answers it.
 *
 * @example
 * preflightHeaders(corsPolicy('*'), 'https://a.example')['access-control-allow-methods'] // 'GET,PUT,POST,PATCH,DELETE,OPTIONS'
 */
export function preflightHeaders(cors: CorsPolicy, origin: string | undefined): Record<string, string> {
  return {
    ...cors.headers(origin),
    ...(cors.any ? {} : { vary: 'Origin, Access-Control-Request-Headers' }),
    'access-control-max-age': MAX_AGE_SECONDS,
    'access-control-allow-methods': ALLOW_METHODS,
    'access-control-allow-headers': ALLOW_HEADERS,
    ...(cors.any ? { vary: 'Access-Control-Request-Headers' } : {}),
  };
}
