import { webcrypto } from 'node:crypto';
import { HttpProblem } from '../../functions/core/problem.ts';
import { failureLimiter, type FailureLimiterOptions } from './failure-limiter.ts';
import { isLoopback } from './loopback.ts';
import { sharedRuns } from '../tools/shared-run.ts';
import type { TokenClaims } from './tokens.ts';
import type { CloudUser } from '../../functions/core/device/index.ts';
import { userOfChuteToken } from './chute-tokens.ts';

/**
 * Who may use the API. The HTTP layer (runtime/http/auth.ts) asks it about every request; make one
 * with `localAuth` (the device) or `fixedAuth` (the emulator).
 */
export interface AuthPolicy {
  /**
   * `POST /api/v1/auth/local`: a signed token (HS256 JWT, valid 1 h) for good credentials, null for
   * wrong ones. `client` is the peer address.
   * @throws HttpProblem 429 while the client is locked out, 403 when it may not log in at all.
   */
  login(username: string, password: string, client: string | undefined): Promise<string | null>;
  /**
   * Every other request: the user it acts as, from its `Authorization` header (`Bearer <token>` or
   * `Basic`), or null for a loopback client while no password is set. Decided at once (the user, not
   * a promise) when the accounts and the key are known and the request is loopback without a
   * password, or carries the token or Basic credentials accepted last; else a promise.
   * @throws HttpProblem 401 (with `WWW-Authenticate`), 403 or 429 (or a promise rejected with it).
   */
  authorize(authorization: string | undefined, client: string | undefined): Known<string | null>;
  /**
   * `POST /api/v1/password/change`: sets the password of `username`, of which only a scrypt hash is
   * stored. While the device has no account this makes the first; then it changes an existing one.
   * Changes are made one at a time.
   * @throws HttpProblem 422 naming `body.username` for an account the device does not have, or
   *   `body.password` for an empty password.
   */
  changePassword(username: string, password: string): Promise<void>;
  /**
   * `POST /api/v1/password/clear`: the accounts go back to what the store keeps when cleared (none on
   * a device: only loopback clients are served), and every token issued to them stops working.
   */
  clearPasswords(): Promise<void>;
  /**
   * `POST /api/v1/auth/cloud`: a token (as a login's, valid 1 h) for a user the controller vouched
   * for, who needs no account on the device; `client` is the peer address.
   * @throws HttpProblem 403 when it may not log in at all (no password is set and it is not on the device).
   */
  cloudLogin(user: CloudUser, client: string | undefined): Promise<string>;
}

/** Where a policy's accounts are kept, for `changePassword` and `clearPasswords`. */
export interface AccountStore {
  /** Stores a new user table (hashes only), atomically: `users()` answers it from then on. */
  write(users: UserTable): Promise<void>;
  /** What clearing the passwords leaves: no account on a device (loopback only), the emulator's own account. */
  readonly cleared: UserTable;
}

/** A value, or while it is not known yet, its promise. */
export type Known<T> = T | Promise<T>;

/**
 * `next(value)`, at once when `value` is known, else once it is.
 *
 * @example
 * whenKnown(users(), (table) => Object.keys(table)) // the names, or their promise
 */
export function whenKnown<T, R>(value: Known<T>, next: (value: T) => Known<R>): Known<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Account name → password hash (`hashPassword`); empty while no password is set. */
export type UserTable = Record<string, string>;

export interface PolicyOptions {
  /**
   * The current accounts; asked on every request, so a `chutebox passwd` takes effect at once. Known
   * at once (not a promise) lets a request be authorized at once.
   */
  users(): Known<UserTable>;
  /** HMAC key of the tokens, or how to get the current one (asked on every token signed or checked; best known at once, as `lazyTokenKey` gives it). */
  secret: webcrypto.CryptoKey | (() => Known<webcrypto.CryptoKey>);
  /** While no password is set: serve loopback clients without credentials (others get 403). */
  openToLoopbackWithoutPassword: boolean;
  limiter?: FailureLimiterOptions;
  /** Clock in milliseconds; default Date.now. */
  now?: () => number;
  /** Checks a password against its stored hash; default `verifyPassword` (scrypt, loaded on first use). */
  verify?: (stored: string, password: string) => Promise<boolean>;
  /** Where `changePassword` and `clearPasswords` write the accounts. */
  store: AccountStore;
  /**
   * The secret the chutes' API tokens are made with (runtime/auth/chute-tokens.ts); null while there
   * is none. Without it no chute token is taken.
   */
  chuteSecret?: () => Known<Uint8Array | null>;
}

/** An account's name: what `chutebox passwd --user` and `POST /api/v1/password/change` take. */
export const ACCOUNT_NAME = /^[A-Za-z0-9._-]{1,64}$/;

export const TOKEN_LIFETIME_SECONDS = 3600;
export const CHALLENGE = 'Bearer realm="chutebox", Basic realm="chutebox"';
const NO_PASSWORD = 'no password is set on this device, so only clients on the device itself are served; run `chutebox passwd` on the device to set one';
/** Successful Basic checks remembered, so a script using Basic does not pay one scrypt per request. */
const VERIFIED_CACHE_SIZE = 64;
/** Tokens whose signature was checked, remembered with their claims: a client sends the same one for an hour. */
const TOKEN_CACHE_SIZE = 64;

/**
 * The policy behind `localAuth` and `fixedAuth`.
 *
 * @example
 * const policy = createPolicy({ users: async () => ({ paradrop: hash }), secret, openToLoopbackWithoutPassword: true });
 * const token = await policy.login('paradrop', 'pw', '192.168.1.20');
 * await policy.authorize(`Bearer ${token}`, '192.168.1.20'); // 'paradrop'
 */
export function createPolicy(options: PolicyOptions): AuthPolicy {
  const { secret } = options;
  const currentSecret = typeof secret === 'function' ? secret : () => secret;
  const now = options.now ?? Date.now;
  /** The password check: scrypt from dist/passwords.mjs, loaded on the first password checked. */
  const verify = options.verify ?? (async (stored: string, password: string) => (await import('./passwords.ts')).verifyPassword(stored, password));
  const limiter = failureLimiter({ now, ...options.limiter });
  const verified = new Map<string, string>();
  const checks = sharedRuns<boolean>();
  let tokenCode: Promise<typeof import('./tokens.ts')> | undefined;
  /** The token code (dist/tokens.mjs), loaded on the first login or token. */
  const tokens = () => (tokenCode ??= import('./tokens.ts'));
  /** Checked tokens and their claims, for the key that checked them: a new secret checks every token again. */
  const checked = new Map<string, TokenClaims>();
  let checkedWith: webcrypto.CryptoKey | undefined;
  /**
   * The last `Authorization` header accepted, for the accounts it was accepted with: a client sends
   * the same one on every request, which is then decided by comparing the header, without parsing
   * it or looking it up (`again` answers null when the answer may have changed: a new key, an
   * expired token).
   */
  let accepted: { header: string; users: UserTable; again: (client: string | undefined) => string | null } | undefined;

  /**
   * Checks a password, remembering recent successes, keyed by the credentials as the request sent
   * them (what every Basic request carries in the clear anyway) and kept only while the stored hash
   * is the same: a keyed hash of them would cost more than the rest of the request
   * (docs/decisions/0017-a-request-costs-what-its-answer-needs.md).
   */
  async function checkPassword(users: UserTable, username: string, password: string): Promise<boolean> {
    const stored = Object.hasOwn(users, username) ? users[username]! : undefined;
    if (stored === undefined) return false;
    const key = `${username}\0${password}`;
    if (verified.get(key) === stored) return true;
    // Concurrent checks of the same credentials share one scrypt (16 MiB each): a client that opens
    // 32 connections at once must not cost 32 of them.
    return checks
      .run(`${key}\0${stored}`, () => verify(stored, password))
      .then((ok) => {
        if (ok) {
          verified.delete(key);
          verified.set(key, stored);
          if (verified.size > VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!);
        }
        return ok;
      });
  }

  /** Checks a password for `client`, refused with 429 while it is locked out and counted when wrong. */
  async function attempt(users: UserTable, username: string, password: string, client: string | undefined): Promise<boolean> {
    const address = client ?? 'unknown';
    limiter.assertAllowed(address);
    const ok = await checkPassword(users, username, password);
    if (!ok) limiter.recordFailure(address);
    return ok;
  }

  function isOpen(users: UserTable, client: string | undefined): boolean {
    if (hasAccounts(users)) return false;
    if (options.openToLoopbackWithoutPassword && isLoopback(client)) return true;
    throw new HttpProblem(403, NO_PASSWORD);
  }

  /**
   * The user of a token signed with the current secret that has not expired and whose user still
   * exists; `header` (the request's `Authorization`) is remembered as `accepted` when it is.
   */
  async function userOfToken(users: UserTable, token: string, header: string): Promise<string | null> {
    const key = await currentSecret();
    if (key !== checkedWith) {
      checked.clear();
      checkedWith = key;
    }
    let claims = checked.get(token);
    if (claims === undefined) {
      const verified = await (await tokens()).verifyToken(token, key);
      if (verified === null) return null;
      checked.set(token, verified);
      if (checked.size > TOKEN_CACHE_SIZE) checked.delete(checked.keys().next().value!);
      claims = verified;
    }
    const user = userOfClaims(users, claims);
    const known = claims;
    // Again with the same key only: a key not known at once (a promise) is checked the long way.
    if (user !== null) accepted = { header, users, again: () => (currentSecret() === key ? userOfClaims(users, known) : null) };
    return user;
  }

  /** `username`, whose password `header` carried and was verified, for every request from a client not locked out. */
  function acceptBasic(header: string, users: UserTable, username: string): string {
    accepted = {
      header,
      users,
      again: (client) => {
        limiter.assertAllowed(client ?? 'unknown');
        return username;
      },
    };
    return username;
  }

  /** The user of a token's claims: a cloud user as the controller named them, an account while it exists; null once expired. */
  function userOfClaims(users: UserTable, claims: TokenClaims): string | null {
    if (claims.exp <= now() / 1000) return null;
    return claims.dom === 'cloud' || Object.hasOwn(users, claims.sub) ? claims.sub : null;
  }

  /** A login (local or cloud) is refused to a client not on the device while no password is set: it would be refused every request. */
  function assertMayLogIn(users: UserTable, client: string | undefined): void {
    if (!hasAccounts(users) && !(options.openToLoopbackWithoutPassword && isLoopback(client))) throw new HttpProblem(403, NO_PASSWORD);
  }

  /** The last account change, so that the next one reads what it wrote (no change is lost to another). */
  let accountChange: Promise<unknown> = Promise.resolve();
  const oneAtATime = (change: () => Promise<void>) => {
    const done = accountChange.then(change);
    accountChange = done.catch(() => undefined);
    return done;
  };

  return {
    async login(username, password, client) {
      const users = await options.users();
      assertMayLogIn(users, client);
      if (!(await attempt(users, username, password, client))) return null;
      const iat = Math.floor(now() / 1000);
      return (await tokens()).signToken({ sub: username, iat, exp: iat + TOKEN_LIFETIME_SECONDS }, await currentSecret());
    },

    authorize(authorization, client) {
      // A chute's token is the device's own credential: taken with or without a password, from any address.
      if (options.chuteSecret !== undefined && authorization !== undefined && CHUTE_BEARER.test(authorization)) {
        const token = authorization.slice(authorization.indexOf('chute.'));
        return whenKnown(options.chuteSecret(), (secret) => {
          const user = secret === null ? null : userOfChuteToken(secret, token.trim());
          if (user === null) throw refused(authorization);
          return user;
        });
      }
      return whenKnown(options.users(), (users) => {
        if (isOpen(users, client)) return null;
        const last = accepted;
        const user = last !== undefined && last.header === authorization && last.users === users ? last.again(client) : null;
        return user ?? checkCredentials(users, authorization, client);
      });
    },

    async cloudLogin(user, client) {
      assertMayLogIn(await options.users(), client);
      const iat = Math.floor(now() / 1000);
      const claims: TokenClaims = { sub: user.email, iat, exp: iat + TOKEN_LIFETIME_SECONDS, dom: 'cloud', role: user.role };
      return (await tokens()).signToken(claims, await currentSecret());
    },

    changePassword(username, password) {
      // The checks and the hash: runtime/auth/passwords.ts, a bundle loaded on the first one.
      return oneAtATime(async () => options.store.write(await (await import('./passwords.ts')).withPassword(await options.users(), username, password)));
    },

    clearPasswords() {
      return oneAtATime(() => options.store.write(options.store.cleared));
    },
  };

  /** The user of credentials not accepted last: a token's signature checked, or a password verified. */
  async function checkCredentials(users: UserTable, authorization: string | undefined, client: string | undefined): Promise<string> {
    const [, scheme = '', value = ''] = /^(\S+)\s+(\S+)\s*$/.exec(authorization ?? '') ?? [];
    if (scheme.toLowerCase() === 'bearer') {
      const user = await userOfToken(users, value, authorization!);
      if (user === null) throw refused(authorization);
      return user;
    }
    if (scheme.toLowerCase() === 'basic') {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) {
        const username = decoded.slice(0, colon);
        if (!(await attempt(users, username, decoded.slice(colon + 1), client))) throw refused(authorization);
        return acceptBasic(authorization!, users, username);
      }
    }
    throw refused(authorization);
  }
}

/** An `Authorization` header with a chute's token (runtime/auth/chute-tokens.ts). */
const CHUTE_BEARER = /^bearer\s+chute\./i;

/** Whether a user table holds an account; allocates nothing, as it runs on every request. */
function hasAccounts(users: UserTable): boolean {
  for (const _ in users) return true;
  return false;
}

/** The 401 answer to a request whose `Authorization` header is missing or names no user. */
function refused(authorization: string | undefined): HttpProblem {
  return unauthorized(authorization === undefined ? 'this endpoint needs credentials' : 'the credentials are not valid');
}

/** A 401 problem carrying the challenge for both schemes. */
export function unauthorized(detail: string): HttpProblem {
  return new HttpProblem(401, `${detail}: send "Authorization: Bearer <token from POST /api/v1/auth/local>" or Basic credentials`, {
    headers: { 'www-authenticate': CHALLENGE },
  });
}

/** An HMAC-SHA-256 key for tokens from raw secret bytes. */
export function tokenKey(secret: Uint8Array): Promise<webcrypto.CryptoKey> {
  return webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

/**
 * `tokenKey(secret)`, made on the first call and the same key after: importing a key loads WebCrypto,
 * which a start and the requests without a token do not need.
 *
 * @example
 * createPolicy({ users, secret: lazyTokenKey(randomBytes(32)), openToLoopbackWithoutPassword: false });
 */
export function lazyTokenKey(secret: Uint8Array): () => Known<webcrypto.CryptoKey> {
  let key: webcrypto.CryptoKey | undefined;
  let making: Promise<webcrypto.CryptoKey> | undefined;
  return () =>
    key ??
    (making ??= tokenKey(secret).then((made) => {
      key = made;
      return made;
    }));
}
