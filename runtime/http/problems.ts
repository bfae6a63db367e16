import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { HttpProblem, PROBLEM_CONTENT_TYPE, toProblem } from '../../functions/core/problem.ts';

/**
 * Answers anything thrown as an `application/problem+json` response. A 5xx is logged; its answer
 * never shows the error's message or stack (see `toProblem`).
 *
 * @example
 * app.onError((error, c) => problemResponse(c, error));
 */
export function problemResponse(c: Context, error: unknown): Response {
  const mapped = error instanceof HTTPException && error.status < 500 ? new HttpProblem(error.status, error.message || 'the request was refused') : error;
  const { problem, headers } = toProblem(mapped);
  if (problem.status >= 500) console.error(error);
  return c.body(JSON.stringify(problem), problem.status as 500, { ...headers, 'content-type': PROBLEM_CONTENT_TYPE });
}
