import type { Context } from 'hono';
import type { AuthPolicy } from '../auth/policy.ts';
import { clientAddress } from './client-address.ts';
import { requestHeaders } from './request-headers.ts';

/** ParaDrop's login endpoint: `POST` answers a token (runtime/http/app.ts mounts it). */
export const LOGIN_PATH = '/api/v1/auth/local';

/**
 * What every request but the login and a preflight goes through: `policy.authorize` with its
 * `Authorization` header and peer address. Resolves when the request may go on.
 *
 * @throws HttpProblem 401, 403 or 429 from the policy.
 * @example
 * const authorize = authorizer(policy);
 * app.get('/api/v1/info/features', async (c) => { await authorize(c); … });
 */
export function authorizer(policy: AuthPolicy): (c: Context) => Promise<unknown> {
  return (c) => policy.authorize(requestHeaders(c).authorization, clientAddress(c));
}
