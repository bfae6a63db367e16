// An answer written straight on a connection's socket, where Node's server gives no response object:
// a refused websocket upgrade (runtime/http/websocket.ts), a request Node cannot parse
// (runtime/http/client-error.ts).
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type HttpProblem, PROBLEM_CONTENT_TYPE } from '../../functions/core/problem.ts';

/** Response headers that describe a connection, not a message: never copied onto the socket. */
const CONNECTION_HEADERS = new Set(['connection', 'content-length', 'keep-alive', 'transfer-encoding', 'upgrade']);

/** The Fetch response of a problem: its status and its document. */
export function problemResponse(problem: HttpProblem): Response {
  return new Response(JSON.stringify(problem), { status: problem.status, headers: { 'content-type': PROBLEM_CONTENT_TYPE } });
}

/**
 * Writes a Fetch response on the socket as HTTP/1.1 with `Connection: close`, and ends the
 * connection.
 *
 * @example
 * await writeResponse(socket, problemResponse(new HttpProblem(400, 'not HTTP')), false);
 */
export async function writeResponse(socket: Duplex, response: Response, headOnly: boolean): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`];
  response.headers.forEach((value, name) => {
    if (!CONNECTION_HEADERS.has(name)) lines.push(`${name}: ${value}`);
  });
  // A 426 names the protocol to upgrade to (RFC 9110 section 15.5.22).
  if (response.status === 426) lines.push('upgrade: websocket');
  lines.push(`content-length: ${body.length}`, 'connection: close', '', '');
  if (!socket.destroyed) socket.end(headOnly ? lines.join('\r\n') : Buffer.concat([Buffer.from(lines.join('\r\n')), body]));
}
