import type { Context } from 'hono';
import type { AuthPolicy, Known } from '../auth/policy.ts';
import { clientAddress } from './client-address.ts';
import { incomingMessage, requestHeaders } from './request-headers.ts';

/** ParaDrop's login endpoint: `POST` answers a token (runtime/http/app.ts mounts it). */
export const LOGIN_PATH = '/api/v1/auth/local';

/** ParaDrop's cloud login: `POST` a token the controller issued, answers a token of the device (runtime/http/login.ts). */
export const CLOUD_LOGIN_PATH = '/api/v1/auth/cloud';

/** An `Authorization` header with Basic credentials, which a browser sends by itself once it has them. */
const BASIC = /^basic\s/i;

/**
 * What every request but the login goes through: `policy.authorize` with its `Authorization` header
 * and peer address, or no credentials at all without a policy (`emulate --no-auth`). A request served
 * without credentials must then be local (`local`); one with Basic credentials and an `Origin` must
 * come from a page of the server's own or one of the `listed` origins of `--cors-origin` (`ownPage`).
 * Answers the user whose credentials were accepted (null without credentials) at once when the
 * policy decided at once and nothing more is to be checked, else a promise of it.
 *
 * @throws HttpProblem 401, 403 or 429 from the policy; 403 for a request served without credentials
 *   that is not local, or with Basic credentials from a page of another origin (or a promise
 *   rejected with it).
 * @example
 * const authorize = authorizer(policy, corsPolicy(corsOrigin).listed);
 * app.get('/api/v1/info/features', async (c) => { await authorize(c); … });
 */
export function authorizer(given: AuthPolicy | null | ((c: Context) => AuthPolicy | null), listed: readonly string[]): (c: Context) => Known<string | null> {
  /** The policy of `c`: the one given, or the one of the device `c` is for (a fleet's, `policyOf`). */
  const policyOf = typeof given === 'function' ? given : () => given;
  /** What more a request the policy let through as `user` must pass: nothing in the common case (credentials and no `Origin`). */
  const more = (c: Context, headers: Record<string, string>, user: string | null) => {
    const check = user === null ? local(c) : headers.origin !== undefined && BASIC.test(headers.authorization!) ? ownPage(headers, listed) : undefined;
    return check === undefined ? user : check.then(() => user);
  };
  return (c) => {
    const headers = requestHeaders(c);
    const policy = policyOf(c);
    if (policy === null) return more(c, headers, null);
    const decided = policy.authorize(headers.authorization, clientAddress(c));
    return decided instanceof Promise ? decided.then((user) => more(c, headers, user)) : more(c, headers, decided);
  };
}

/**
 * Whether a request with Basic credentials and an `Origin` may go on: a browser adds the Basic
 * credentials it remembers to any request to the server, a form another site submits too
 * (runtime/http/local-request.ts, loaded on the first such request).
 */
function ownPage(headers: Record<string, string>, listed: readonly string[]): Promise<void> {
  return import('./local-request.ts').then((module) => module.assertOwnPage(headers, listed));
}

/** The `Host` of the last request found local: a client sends the same one on every request. */
let localHost: string | null = null;

/**
 * Whether a request served without credentials may go on: one made in this process (msw, a test's
 * `app.request`) came from no browser; one over HTTP must name a loopback `Host` and come from no
 * page of another origin (runtime/http/local-request.ts, loaded on a `Host` not seen before or an `Origin`).
 */
function local(c: Context): Promise<void> | undefined {
  const headers = incomingMessage(c)?.headers;
  if (headers === undefined || (headers.host === localHost && headers.origin === undefined)) return undefined;
  return import('./local-request.ts').then((module) => {
    module.assertLocal(headers);
    localHost = headers.host!;
  });
}
