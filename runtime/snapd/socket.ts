import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { SnapdAnswer, SnapdRequest } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { snapdNotRunning } from './problems.ts';

/** How long snapd has to answer in full; it answers a long operation at once with the id of its own change. */
export const SNAPD_TIMEOUT_MS = 30_000;

/** The largest answer of snapd kept for a client, in bytes: its interface list on a device with many snaps is far less. */
export const SNAPD_ANSWER_LIMIT = 4 * 1024 * 1024;

/** How `snapdOverSocket` reaches snapd. */
export interface SnapdSocketOptions {
  socketPath: string;
  timeoutMs?: number;
  answerLimit?: number;
}

/**
 * snapd's REST API over its Unix socket, as ParaDrop's daemon reaches it: the request's method, path,
 * query, `Content-Type` and body, nothing else of the client's (its credentials are the API's, and
 * snapd knows its caller by the socket's peer). The answer is read in full, within `answerLimit`
 * bytes and `timeoutMs`.
 *
 * @throws HttpProblem 503 when nothing listens on the socket, 504 past the timeout, 502 when snapd
 *   breaks off or answers more than the limit.
 * @example
 * await snapdOverSocket({ socketPath: '/run/snapd.socket' })({ method: 'GET', target: '/v2/interfaces', contentType: null, body: null })
 */
export function snapdOverSocket(options: SnapdSocketOptions): (request: SnapdRequest) => Promise<SnapdAnswer> {
  const { socketPath, timeoutMs = SNAPD_TIMEOUT_MS, answerLimit = SNAPD_ANSWER_LIMIT } = options;
  return (request) =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { host: 'localhost', 'content-length': request.body?.byteLength ?? 0 };
      if (request.contentType !== null) headers['content-type'] = request.contentType;
      const sent = httpRequest({ socketPath, path: request.target, method: request.method, headers, agent: false });
      const fail = (problem: HttpProblem) => {
        clearTimeout(timer);
        sent.destroy();
        reject(problem);
      };
      const timer = setTimeout(() => fail(new HttpProblem(504, `snapd did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
      sent.on('error', (error: NodeJS.ErrnoException) => fail(unreachable(socketPath, error)));
      sent.once('response', (answer) =>
        readAnswer(answer, answerLimit).then((body) => {
          clearTimeout(timer);
          resolve({ status: answer.statusCode ?? 502, contentType: answer.headers['content-type'] ?? 'application/json', body });
        }, fail),
      );
      sent.end(request.body ?? undefined);
    });
}

/** The problem of a socket error: snapd not running, or breaking off. */
function unreachable(socketPath: string, error: NodeJS.ErrnoException): HttpProblem {
  if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') return snapdNotRunning(socketPath);
  return new HttpProblem(502, `snapd broke off the request: ${error.message}`);
}

/** `answer`'s body, or a 502 once it passes `limit` bytes or breaks off. */
function readAnswer(answer: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    answer.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        reject(new HttpProblem(502, `snapd answered more than ${limit} bytes`));
        answer.destroy();
      } else chunks.push(chunk);
    });
    answer.on('error', (error) => reject(new HttpProblem(502, `snapd broke off its answer: ${error.message}`)));
    answer.on('aborted', () => reject(new HttpProblem(502, 'snapd broke off its answer')));
    answer.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
  });
}
