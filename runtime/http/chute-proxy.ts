import type { Context } from 'hono';
import { chuteWebTarget } from '../../functions/chutes/web-target.ts';
import { CHUTE_NAME, type Device } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { endToEnd, forward } from './forward.ts';

/** How long a chute has to start answering before the proxy gives up with a 502. */
const ANSWER_TIMEOUT_MS = 30_000;

/** A chute page's path as sent (percent-encoded): `/chutes/<chute>`, then the chute's own path, empty or from a `/`. */
const CHUTE_PAGE_PATH = /^\/chutes\/[^/]+(.*)$/s;

/** The request header that is the API's credentials, never a chute's (the API sets no cookie: a chute's own cookies pass). */
const API_CREDENTIALS = 'authorization';

/**
 * The web page of a chute (`web.port`), through a streaming reverse proxy (runtime/http/forward.ts):
 * `/chutes/<chute>/x?y` is `http://<container>:<web.port>/x?y`, request and answer streamed both ways,
 * and `/chutes/<chute>?y` a 308 to `/chutes/<chute>/?y`, so that the page's relative links resolve
 * below it. It needs no credentials of the API: the page is the chute's, for the people its networks
 * serve, who have none; so the API's `Authorization` is never passed on to a chute, nor any header of
 * the client's own connection, `Proxy-Authorization` included. Cookies are the chute's own (the API
 * sets none), passed on both ways, so that a chute can keep its own sessions.
 *
 * @throws HttpProblem 404 for an unknown chute or one without `web.port`, 503 when it does not run,
 *   502 when it does not answer.
 * @example
 * app.all('/chutes/:chute/*', (c) => chuteWeb(c, device));
 */
export async function chuteWeb(c: Context, device: Device): Promise<Response> {
  const chute = c.req.param('chute') ?? '';
  if (!CHUTE_NAME.test(chute)) throw new HttpProblem(404, `no resource at ${c.req.path}`);
  const { pathname, search } = new URL(c.req.url);
  // The chute's path is what follows the name's segment as sent, whatever encoding the name has there.
  const rest = CHUTE_PAGE_PATH.exec(pathname)?.[1] ?? '';
  if (rest === '') return c.redirect(`/chutes/${chute}/${search}`, 308);
  const { host, port } = await chuteWebTarget(device, chute);
  const headers = Object.fromEntries(endToEnd(c.req.raw.headers).filter(([name]) => name !== API_CREDENTIALS));
  try {
    return await forward(c.req.raw, upstreamUrl(host, port, rest, search), { ...headers, 'x-forwarded-prefix': `/chutes/${chute}` }, ANSWER_TIMEOUT_MS);
  } catch (error) {
    throw new HttpProblem(502, `chute ${chute} does not answer on port ${port} (${host}): ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The URL of `pathname` and `search` (percent-encoded) at `host` and `port`, each set as a part of its own: no part can move another. */
function upstreamUrl(host: string, port: number, pathname: string, search: string): URL {
  const url = new URL('http://chute.invalid');
  url.hostname = host.includes(':') ? `[${host}]` : host;
  url.port = String(port);
  url.pathname = pathname;
  url.search = search;
  return url;
}
