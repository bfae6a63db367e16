// `GET /api/v1/chutes/<chute>/logs`: a chute's log as newline-delimited JSON, streamed. A bundle of its
// own (dist/chute-logs.mjs), loaded on the first request, as a function bundle is; the runtime
// answers it itself because a function's answer is whole. See docs/api/logs.md#chute-logs.
import type { Context } from 'hono';
import { chuteLogsRequest } from '../../functions/chutes/logs.ts';
import { LOG_MEDIA_TYPE, logLine } from '../../functions/core/logs.ts';
import { loadChute } from '../../functions/chutes/lookup.ts';
import type { ChuteLogEntry, Device } from '../../functions/core/device/index.ts';
import type { CorsPolicy } from './cors.ts';
import { requestHeaders } from './request-headers.ts';

/** The headers of the answer: its media type, and that no cache may keep a log that goes on. */
const HEADERS = Object.freeze({ 'content-type': LOG_MEDIA_TYPE, 'cache-control': 'no-store' });

/**
 * The log of chute `:chute` (`Device.chuteLogs`), each line `{"time", "service", "stream", "message"}`
 * and a newline as a service of the chute printed it, every service's lines interleaved by time, written as it is read, with the CORS headers of the request's
 * origin. With `follow` the answer goes on until the chute stops, `until` passes or the client goes
 * away, which stops the device's reading. The request is checked before the answer begins: a 400
 * naming `params.chute` or a malformed `query.<name>`, 422 for `until` before `since`, 404 for an
 * unknown chute, 503 without a container engine.
 *
 * @example
 * await chuteLogs(c, device, cors) // 200, application/x-ndjson: {"time":"2026-11-21T12:00:01.5Z","service":"main","stream":"stdout","message":"ready"}\n…
 */
export async function chuteLogs(c: Context, device: Device, cors: CorsPolicy): Promise<Response> {
  const { chute, options, timestamps } = chuteLogsRequest({ params: c.req.param(), query: c.req.query() }, device.now());
  await loadChute(device, chute);
  const entries = await device.chuteLogs(chute, options);
  const encoder = new TextEncoder();
  const body = entries.pipeThrough(
    new TransformStream<ChuteLogEntry, Uint8Array>({ transform: (entry, out) => out.enqueue(encoder.encode(logLine(entry, timestamps))) }),
  );
  return new Response(body, { headers: cors.answerHeaders(HEADERS, requestHeaders(c).origin) as Record<string, string> });
}
