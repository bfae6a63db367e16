// The answer to a request Node's HTTP server cannot read (its `clientError` event): a problem
// document where Node writes a bare status line. A bundle of its own (dist/client-error.mjs),
// loaded on the first such request.
import { maxHeaderSize, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { HttpProblem } from '../../functions/core/problem.ts';
import { problemResponse, writeResponse } from './socket-answer.ts';

/** What Node's server reports: a parser error (`HPE_…`, with the parser's `reason`), a timeout, or a socket error. */
export type ClientError = Error & { code?: string; reason?: string };

/** Connections answered already: the parser reports its error again for each chunk that comes after it. */
const answered = new WeakSet<Duplex>();

/**
 * Answers a request Node's server could not read as Node would (431 for a head over its limit, 413
 * for chunk extensions over theirs, 408 for a request not received in time, 400 for anything else),
 * but with a problem document, and closes the connection once it is written. As Node, it writes
 * nothing on a connection that is gone or where an answer has begun (a request sent after another
 * whose answer is under way), and only closes it. Never rejects.
 *
 * @example
 * server.on('clientError', (error, socket) => void answerClientError(error, socket));
 */
export async function answerClientError(error: ClientError, socket: Duplex): Promise<void> {
  if (answered.has(socket)) return;
  answered.add(socket);
  // Node's own rule (lib/_http_server.js, socketOnError) looks at the response it writes on the connection.
  const connection = socket as Socket & { _httpMessage?: ServerResponse | null };
  try {
    if (!connection.writable || connection._httpMessage?.headersSent === true) return void connection.destroy();
    await writeResponse(socket, problemResponse(clientProblem(error)), false);
    connection.destroySoon();
  } catch {
    connection.destroy();
  }
}

/**
 * The problem of a request Node's server could not read.
 *
 * @example
 * clientProblem(Object.assign(new Error('Parse Error: Header overflow'), { code: 'HPE_HEADER_OVERFLOW' })).status // 431
 */
export function clientProblem(error: ClientError): HttpProblem {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new HttpProblem(
        431,
        `the request's head (its request line and headers) is larger than the ${maxHeaderSize} bytes this server reads: send fewer or shorter headers`,
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new HttpProblem(413, "the chunk extensions of the request's body are larger than this server reads: send the body without them");
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpProblem(408, 'the request did not arrive in time: send its head and body without long pauses');
    default:
      return new HttpProblem(
        400,
        `the request is not HTTP/1.1 this server can read (${error.reason ?? error.code ?? error.message}): send a well-formed request`,
      );
  }
}
