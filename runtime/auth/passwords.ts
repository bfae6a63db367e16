import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { HttpProblem } from '../../functions/core/problem.ts';

/** scrypt cost parameters for new hashes (Node's defaults: 16 MiB of memory per hash). */
const COST = { N: 16384, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Hashes with a cost above this are refused rather than computed (2^20 × 8 × 128 B = 1 GiB). */
const MAX_N = 2 ** 20;

/**
 * Hashes a password for `auth/passwd.json`: `scrypt$N$r$p$<salt base64>$<hash base64>`.
 *
 * @example
 * await hashPassword('s3cret') // 'scrypt$16384$8$1$q0v…==$Jt2…='
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, KEY_BYTES, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/**
 * Checks a password against a hash made by `hashPassword`, in constant time.
 * A malformed hash never matches.
 *
 * @example
 * await verifyPassword(await hashPassword('s3cret'), 's3cret') // true
 */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (parsed === null) return false;
  const actual = await derive(password, parsed.salt, parsed.hash.length, parsed.cost);
  return timingSafeEqual(actual, parsed.hash);
}

function parseHash(stored: string): { cost: typeof COST; salt: Buffer; hash: Buffer } | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const valid = (n: number) => Number.isSafeInteger(n) && n > 0;
  if (!valid(N) || !valid(r) || !valid(p) || N > MAX_N || (N & (N - 1)) !== 0 || r * p >= 2 ** 30) return null;
  const salt = Buffer.from(parts[4]!, 'base64');
  const hash = Buffer.from(parts[5]!, 'base64');
  if (salt.length === 0 || hash.length === 0) return null;
  return { cost: { N, r, p }, salt, hash };
}

function derive(password: string, salt: Buffer, length: number, cost: typeof COST): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r * cost.p };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/**
 * `users` (a `UserTable`) with `username`'s password set to `password` (hashed), as `POST /api/v1/password/change`
 * sets it: the first account while there is none, then only an existing one.
 *
 * @throws HttpProblem 422 naming `body.username` for an account the device does not have, or `body.password` for an empty password.
 */
export async function withPassword(users: Readonly<Record<string, string>>, username: string, password: string): Promise<Record<string, string>> {
  const names = Object.keys(users);
  if (names.length > 0 && !Object.hasOwn(users, username)) {
    throw invalidAccount('body.username', `the device has no account named ${username}: change the password of ${names.join(', ')}`);
  }
  if (password === '') throw invalidAccount('body.password', 'an empty password is no password: POST /api/v1/password/clear to remove the passwords');
  return { ...users, [username]: await hashPassword(password) };
}

/** A 422 naming the field of a password change that the device cannot take. */
function invalidAccount(path: string, message: string): HttpProblem {
  return new HttpProblem(422, `the password was not changed: ${message}`, { errors: [{ path, message }] });
}
