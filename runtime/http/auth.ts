import type { Context } from 'hono';
import { atHand, NOT_AT_HAND, valueAtHand } from '../../functions/core/at-hand.ts';
import type { AuthPolicy } from '../auth/policy.ts';
import { clientAddress } from './client-address.ts';
import { incomingMessage, requestHeaders } from './request-headers.ts';

/** ParaDrop's login endpoint: `POST` answers a token (runtime/http/app.ts mounts it). */
export const LOGIN_PATH = '/api/v1/auth/local';

/** What a request served without credentials is let through with. */
const OPEN = atHand(null);

/**
 * What every request but the login goes through: `policy.authorize` with its `Authorization` header
 * and peer address, or no credentials at all without a policy (`emulate --no-auth`). A request served
 * without credentials must then be local (`local`). Resolves when the request may go on; at hand
 * when the policy decided at once and the request is not checked for the first time.
 *
 * @throws HttpProblem 401, 403 or 429 from the policy; 403 for a request served without credentials that is not local.
 * @example
 * const authorize = authorizer(policy);
 * app.get('/api/v1/info/features', async (c) => { await authorize(c); … });
 */
export function authorizer(policy: AuthPolicy | null): (c: Context) => Promise<unknown> {
  return (c) => {
    const decided = policy?.authorize(requestHeaders(c).authorization, clientAddress(c)) ?? OPEN;
    const user = valueAtHand(decided);
    return user === NOT_AT_HAND ? decided.then((user) => user ?? local(c)) : user === null ? local(c) : decided;
  };
}

/** The `Host` of the last request found local: a client sends the same one on every request. */
let localHost: string | null = null;

/**
 * Whether a request served without credentials may go on: one made in this process (msw, a test's
 * `app.request`) came from no browser; one over HTTP must name a loopback `Host` and come from no
 * page of another origin (runtime/http/local-request.ts, loaded on a `Host` not seen before or an `Origin`).
 */
function local(c: Context): Promise<null> {
  const headers = incomingMessage(c)?.headers;
  if (headers === undefined || (headers.host === localHost && headers.origin === undefined)) return OPEN;
  return import('./local-request.ts').then((module) => {
    module.assertLocal(headers);
    localHost = headers.host!;
    return null;
  });
}
