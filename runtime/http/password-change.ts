// ParaDrop's password endpoints, `POST /api/v1/password/change` and `/clear`: a bundle of their own
// (dist/password-change.mjs), loaded on the first one.
import * as z from 'zod/mini';
import type { FunctionOutput } from '../../functions/core/handler.ts';
import { validate } from '../../functions/core/validate.ts';
import { ACCOUNT_NAME, type AuthPolicy } from '../auth/policy.ts';

/** The account ParaDrop's password endpoints change when the body names none. */
const DEFAULT_ACCOUNT = 'paradrop';

/** The body of a password change, as pdtools' `node set-password` sends it. */
export const PasswordChangeBodySchema = z.object({
  /** The account; `paradrop` when not given. */
  username: z.optional(z.string().check(z.regex(ACCOUNT_NAME, "must be 1 to 64 letters, digits, '.', '_' or '-'"))),
  password: z.string(),
});

/** What both endpoints answer once done, as ParaDrop does. */
export const PasswordAnswerSchema = z.strictObject({ success: z.literal(true) });

const DONE: FunctionOutput = { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ success: true }) };

/**
 * Sets the password of the body's account (`paradrop` when it names none): the first account while
 * the device has none, else one it has. Only its scrypt hash is stored, atomically.
 *
 * @throws HttpProblem 422 naming `body.username` or `body.password` (a missing or empty password,
 *   an account the device does not have), as `AuthPolicy.changePassword`.
 * @example
 * await changePassword(policy, { username: 'paradrop', password: 'correct horse' }) // 200 {"success":true}
 */
export async function changePassword(policy: AuthPolicy, body: unknown): Promise<FunctionOutput> {
  const { username, password } = validate(PasswordChangeBodySchema, body);
  await policy.changePassword(username ?? DEFAULT_ACCOUNT, password);
  return DONE;
}

/**
 * Removes every password, as ParaDrop's clear does; chutebox has no default password, so a device
 * then serves only the clients on the device itself (the emulator goes back to its own account).
 *
 * @example
 * await clearPasswords(policy) // 200 {"success":true}
 */
export async function clearPasswords(policy: AuthPolicy): Promise<FunctionOutput> {
  await policy.clearPasswords();
  return DONE;
}
