import { randomBytes } from 'node:crypto';
import { hashPassword } from './passwords.ts';
import { createPolicy, lazyTokenKey, type AuthPolicy, type UserTable } from './policy.ts';

/**
 * A policy with one fixed account and a random in-memory token secret, for the emulator: every
 * request needs credentials, from any address. Its tokens are issued and expire on `now` (the
 * emulated device's clock; default the real one); failed logins are counted in real time.
 *
 * @example
 * const auth = await fixedAuth({ username: 'paradrop', password: '' }, clock.now);
 */
export async function fixedAuth(account: { username: string; password: string }, now?: () => number): Promise<AuthPolicy> {
  return fixedPolicy(await fixedAccount(account), now);
}

/** The user table of one fixed account, its password hashed (scrypt): made once, shared by the policies of a fleet's devices. */
export async function fixedAccount(account: { username: string; password: string }): Promise<UserTable> {
  return { [account.username]: await hashPassword(account.password) };
}

/**
 * The secret of the emulator's chute tokens (runtime/auth/chute-tokens.ts): known to all, as the
 * emulator's account is, so that a chute developer can make the token the emulator takes for a chute
 * (docs/emulator.md).
 */
export const EMULATOR_CHUTE_SECRET: Uint8Array = new TextEncoder().encode('chutebox-emulator');

/** What a policy keeps beyond its own life (a fleet's device built again): its token secret, and its user table when a password changed. */
export interface KeptAccounts {
  /** The token secret's bytes: a token signed before is good again on a policy made with the same. */
  secret: Uint8Array;
  /** The user table as last written through the API; undefined while it is `users`. */
  table(): UserTable | undefined;
  write(table: UserTable): void;
}

/**
 * A policy over a user table of its own, `users` at first, with a token secret of its own: a token it
 * signs is good on this policy only (one device of a fleet). A password changed through the API is
 * kept in memory (in `kept` when given); clearing the passwords gives back `users`, the emulator's own account.
 */
export function fixedPolicy(users: UserTable, now?: () => number, kept?: KeptAccounts): AuthPolicy {
  let current = kept?.table() ?? users;
  const store = {
    write: async (table: UserTable) => {
      current = table;
      kept?.write(table);
    },
    cleared: users,
  };
  return createPolicy({
    users: () => current,
    store,
    chuteSecret: () => EMULATOR_CHUTE_SECRET,
    secret: lazyTokenKey(kept?.secret ?? randomBytes(32)),
    openToLoopbackWithoutPassword: false,
    ...(now === undefined ? {} : { now, limiter: { now: Date.now } }),
  });
}
