import { HTTPException } from 'hono/http-exception';
import { HttpProblem } from '../../functions/core/problem.ts';

/**
 * What an error thrown while answering a request stands for: Hono's own 4xx exceptions become the
 * `HttpProblem` of their status; anything else is answered as it is (see `problemOutput`).
 *
 * @example
 * app.onError((error, c) => send(c, problemOutput(problemFor(error))));
 */
export function problemFor(error: unknown): unknown {
  return error instanceof HTTPException && error.status < 500 ? new HttpProblem(error.status, error.message || 'the request was refused') : error;
}
