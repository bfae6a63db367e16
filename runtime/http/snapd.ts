import type { Context } from 'hono';
import type { Device } from '../../functions/core/device/index.ts';
import type { CorsPolicy } from './cors.ts';
import { NULL_BODY_STATUSES } from './null-body.ts';
import { limitedBody } from './request-body.ts';
import { requestHeaders } from './request-headers.ts';

/** ParaDrop's path of snapd's REST API: `/snapd/v2/interfaces` is snapd's `/v2/interfaces`. */
export const SNAPD_PREFIX = '/snapd';

/**
 * ParaDrop's `/snapd/*`: the request handed to the device's snapd (`Device.snapd`: its socket on serve,
 * the scenario's recording in the emulator) with its method, the path below `/snapd`, the query, its
 * `Content-Type` and its body of at most `limit` bytes (413 beyond), and snapd's answer sent back as
 * it is, with the API's CORS headers. The API's auth is checked before.
 *
 * @throws HttpProblem 413 for a body over `limit`; the device's 502, 503 or 504 when snapd cannot answer.
 * @example
 * app.all('/snapd/*', (c) => snapd(c, device, cors, 1 << 20));
 */
export async function snapd(c: Context, device: Device, cors: CorsPolicy, limit: number): Promise<Response> {
  const headers = requestHeaders(c);
  const raw = new URL(c.req.url);
  // The path as routed (a fleet's is below its device's), with the slash at its end that routing does not count.
  const routed = c.req.path.endsWith('/') || !raw.pathname.endsWith('/') ? c.req.path : `${c.req.path}/`;
  const carries = headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined;
  const body = carries ? new Uint8Array(await limitedBody(limit, (c) => c.req.arrayBuffer())(c)) : null;
  const answer = await device.snapd({
    method: c.req.method,
    target: `${routed.slice(SNAPD_PREFIX.length) || '/'}${raw.search}`,
    contentType: headers['content-type'] ?? null,
    body,
  });
  return new Response(NULL_BODY_STATUSES.has(answer.status) ? null : answer.body, {
    status: answer.status,
    headers: { 'content-type': answer.contentType, ...cors.headers(headers.origin) },
  });
}
