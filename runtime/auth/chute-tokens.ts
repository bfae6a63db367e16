import { createHmac, timingSafeEqual } from 'node:crypto';
import { CHUTE_NAME } from '../../functions/core/device/names.ts';

/*
 * A chute's API token, which its container gets as `PARADROP_API_TOKEN` (as on ParaDrop):
 * `chute.<chute>.<mac>`, the MAC being HMAC-SHA-256 over `chute-token:<chute>` with the device's
 * secret, base64url. Nothing per chute is stored: the token is checked by making it again, so it
 * never has to be kept anywhere but in the container's environment, and a new secret (a factory
 * reset) ends every token. It opens only the routes of its own chute (runtime/http/api.ts).
 */

const PREFIX = 'chute.';
/** How the user of a request made with a chute's token is named: never an account (`ACCOUNT_NAME` has no `:`). */
const USER_PREFIX = 'chute:';

/**
 * The API token of chute `chute` on a device whose secret is `secret`.
 *
 * @example
 * chuteToken(secret, 'hello') // 'chute.hello.3q2-7w…'
 */
export function chuteToken(secret: Uint8Array, chute: string): string {
  return `${PREFIX}${chute}.${mac(secret, chute).toString('base64url')}`;
}

/** Whether a Bearer token has the form of a chute's token (rather than a login's JWT). */
export function isChuteToken(token: string): boolean {
  return token.startsWith(PREFIX);
}

/**
 * The user a chute's token acts as (`chute:<chute>`), or null when it is not the token of a chute on
 * this device. Compared in constant time.
 *
 * @example
 * userOfChuteToken(secret, chuteToken(secret, 'hello')) // 'chute:hello'
 */
export function userOfChuteToken(secret: Uint8Array, token: string): string | null {
  const dot = token.lastIndexOf('.');
  const chute = token.slice(PREFIX.length, dot);
  if (!isChuteToken(token) || dot <= PREFIX.length || !CHUTE_NAME.test(chute)) return null;
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(secret, chute);
  return given.length === expected.length && timingSafeEqual(given, expected) ? `${USER_PREFIX}${chute}` : null;
}

/**
 * The chute a request's user is, when it came with a chute's token; null for an account or no user.
 *
 * @example
 * chuteOfUser('chute:hello') // 'hello'
 * chuteOfUser('paradrop')    // null
 */
export function chuteOfUser(user: string | null): string | null {
  return user?.startsWith(USER_PREFIX) === true ? user.slice(USER_PREFIX.length) : null;
}

function mac(secret: Uint8Array, chute: string): Buffer {
  return createHmac('sha256', secret).update(`chute-token:${chute}`).digest();
}
