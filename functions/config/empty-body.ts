import { invalidInput } from '../core/validate.ts';

/**
 * Refuses a body other than none or `{}`, for an endpoint that takes none, naming it.
 *
 * @throws HttpProblem 422 naming `body`.
 * @example
 * checkEmptyBody({ now: true }, 'startUpdate') // 422: startUpdate takes no body (or an empty object)
 */
export function checkEmptyBody(body: unknown, endpoint: string): void {
  const empty = body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
  if (!empty) throw invalidInput('body', [{ path: 'body', message: `${endpoint} takes no body (or an empty object)` }]);
}
