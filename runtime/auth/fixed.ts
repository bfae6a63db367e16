import { randomBytes } from 'node:crypto';
import { hashPassword } from './passwords.ts';
import { createPolicy, lazyTokenKey, type AuthPolicy } from './policy.ts';

/**
 * A policy with one fixed account and a random in-memory token secret, for the emulator: every
 * request needs credentials, from any address. Its tokens are issued and expire on `now` (the
 * emulated device's clock; default the real one); failed logins are counted in real time.
 *
 * @example
 * const auth = await fixedAuth({ username: 'paradrop', password: '' }, clock.now);
 */
export async function fixedAuth(account: { username: string; password: string }, now?: () => number): Promise<AuthPolicy> {
  const users = { [account.username]: await hashPassword(account.password) };
  return createPolicy({
    users: () => users,
    secret: lazyTokenKey(randomBytes(32)),
    openToLoopbackWithoutPassword: false,
    ...(now === undefined ? {} : { now, limiter: { now: Date.now } }),
  });
}
