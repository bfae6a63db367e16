// ParaDrop's login, `POST /api/v1/auth/local`: a bundle of its own (dist/login.mjs), loaded on the
// first login, as a client logs in about once an hour.
import type { Context } from 'hono';
import type { FunctionOutput } from '../../functions/core/handler.ts';
import { CHALLENGE, type AuthPolicy } from '../auth/policy.ts';
import { clientAddress } from './client-address.ts';
import type { RequestBody } from './request-body.ts';

/**
 * The answer to a login: `200 {username, success: true, token}` for good credentials in its body,
 * `401 {username, success: false}` with the challenge for wrong ones. It needs no check of where it
 * comes from: while no password is set, no login succeeds.
 *
 * @throws HttpProblem 400, 413 or 415 for a body that holds no credentials; 403 or 429 from the policy.
 * @example
 * app.post(LOGIN_PATH, async (c) => send(c, await login(c, policy, await body())));
 */
export async function login(c: Context, policy: AuthPolicy, body: RequestBody): Promise<FunctionOutput> {
  const { username, password } = await body.readCredentials(c);
  const token = await policy.login(username, password, clientAddress(c));
  if (token === null) {
    return { status: 401, headers: { 'content-type': 'application/json', 'www-authenticate': CHALLENGE }, body: JSON.stringify({ username, success: false }) };
  }
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, success: true, token }) };
}
