import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { problemOutput } from '../../functions/core/invoke.ts';
import { HttpProblem } from '../../functions/core/problem.ts';

/**
 * Answers anything thrown as an `application/problem+json` response. A 5xx is logged; its answer
 * never shows the error's message or stack (see `toProblem`).
 *
 * @example
 * app.onError((error, c) => problemResponse(c, error));
 */
export function problemResponse(c: Context, error: unknown): Response {
  const mapped = error instanceof HTTPException && error.status < 500 ? new HttpProblem(error.status, error.message || 'the request was refused') : error;
  const out = problemOutput(mapped);
  return c.body(out.body, out.status as 500, out.headers);
}
