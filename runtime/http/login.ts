// ParaDrop's logins, `POST /api/v1/auth/local` and `/auth/cloud`: a bundle of their own
// (dist/login.mjs), loaded on the first login, as a client logs in about once an hour.
import type { Context } from 'hono';
import * as z from 'zod/mini';
import type { Device } from '../../functions/core/device/index.ts';
import type { FunctionOutput } from '../../functions/core/handler.ts';
import { validate } from '../../functions/core/validate.ts';
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

/** The body of a cloud login: a token the controller issued to a user. */
export const CloudLoginBodySchema = z.object({ token: z.string().check(z.minLength(1, 'must be a token the controller issued')) });

/** A cloud login that succeeded: a token for `Authorization: Bearer <token>`, and who it is for. */
export const CloudLoginAnswerSchema = z.strictObject({ token: z.string(), username: z.string() });

/**
 * ParaDrop's cloud login: the controller the device is provisioned with says who the body's token is
 * for (`Provisioning.verifyCloudUser`), and the answer is `200 {token, username}`, a token as a
 * login's, for that user (their email), with their role on the router.
 *
 * @throws HttpProblem 400, 413, 415 or 422 (naming `body.token`) for a body without a token; 409 when
 *   the device is not provisioned; 401 when the controller refuses the token, 403 when it gives the
 *   user no rights on the router or the client may not log in; 502 or 504 when the controller fails.
 * @example
 * app.post(CLOUD_LOGIN_PATH, async (c) => send(c, await cloudLogin(c, policy, device, await body())));
 */
export async function cloudLogin(c: Context, policy: AuthPolicy, device: Device, body: RequestBody): Promise<FunctionOutput> {
  const { token } = validate(CloudLoginBodySchema, await body.readJson(c));
  const user = await device.provisioning.verifyCloudUser(token);
  const issued = await policy.cloudLogin(user, clientAddress(c));
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: issued, username: user.email }) };
}
