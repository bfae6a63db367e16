import { request as httpRequest, validateHeaderName, validateHeaderValue, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { NULL_BODY_STATUSES } from './null-body.ts';

/**
 * Headers of one connection, never passed on by a proxy (RFC 9110 §7.6.1, and `Proxy-Authorization`,
 * the credentials a client gives the proxy itself), in both directions. `Host` is the upstream's own.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
  'host',
]);

/**
 * Sends `request` to `upstream` over a connection of its own and answers the upstream's answer once its
 * head is in, both bodies streamed. `headers` are sent as given, so without hop-by-hop ones (see
 * `endToEnd`); the answer's hop-by-hop headers are dropped. Only the head has `timeoutMs` to come.
 *
 * The answer is read with Node's lenient parser (`insecureHTTPParser`), as browsers and curl read it:
 * a CGI program's head with bare LF line endings is a page, not a 502, and so are the other slips
 * llhttp then lets through (a control character in a header value, a length beside chunked coding).
 * Fetch (undici, which hono/proxy calls) has no such option, and Node none narrower. It is safe here:
 * the connection carries this one exchange and is closed after it (`agent: false`), so nothing read
 * leniently can be taken for another answer; a header our server could not write is dropped, and so
 * is a length beside Transfer-Encoding, so that the client gets the body framed by our own server.
 *
 * @throws Error when the upstream cannot be reached, breaks HTTP, or sends no head within `timeoutMs`.
 * @example
 * await forward(c.req.raw, new URL('http://172.17.0.3:8000/x?y'), Object.fromEntries(endToEnd(c.req.raw.headers)), 30_000)
 */
export function forward(request: Request, upstream: URL, headers: OutgoingHttpHeaders, timeoutMs: number): Promise<Response> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(upstream, { method: request.method, headers, agent: false, insecureHTTPParser: true, signal: request.signal });
    const timer = setTimeout(() => sent.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    sent.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    sent.once('response', (answer) => {
      clearTimeout(timer);
      try {
        resolve(responseOf(answer));
      } catch (error) {
        answer.destroy();
        reject(error);
      }
    });
    // A failed upload destroys `sent` too, which then rejects with its error.
    if (request.body === null) sent.end();
    else pipeline(Readable.fromWeb(request.body as NodeReadableStream), sent, () => {});
  });
}

/** `headers` without those of one connection: `HOP_BY_HOP` and any its `Connection` header names. */
export function endToEnd(headers: Iterable<[string, string]>): [string, string][] {
  const entries = [...headers].map(([name, value]): [string, string] => [name.toLowerCase(), value]);
  const connection = entries.filter(([name]) => name === 'connection').map(([, value]) => value);
  const named = new Set(
    connection
      .join(',')
      .toLowerCase()
      .split(',')
      .map((token) => token.trim()),
  );
  return entries.filter(([name]) => !HOP_BY_HOP.has(name) && !named.has(name));
}

/** The upstream's answer as a Fetch `Response`: its status, end-to-end headers and streamed body. */
function responseOf(answer: IncomingMessage): Response {
  const headers = new Headers();
  const pairs = answer.rawHeaders.flatMap((name, at): [string, string][] => (at % 2 === 0 ? [[name, answer.rawHeaders[at + 1]!]] : []));
  for (const [name, value] of endToEnd(pairs)) if (sendable(name, value)) headers.append(name, value);
  // A length beside Transfer-Encoding is not the body's (RFC 9112 §6.3): our server frames it instead.
  if (answer.headers['transfer-encoding'] !== undefined) headers.delete('content-length');
  const status = answer.statusCode ?? 0;
  if (NULL_BODY_STATUSES.has(status)) answer.resume();
  return new Response(NULL_BODY_STATUSES.has(status) ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>), { status, headers });
}

/** Whether Node's server can write this header (a lenient parse lets through values it refuses). */
function sendable(name: string, value: string): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}
