import type { webcrypto } from 'node:crypto';
import { sign, verify } from 'hono/jwt';

/* The API's tokens: HS256 JWTs by Hono's JWT helper. A bundle of its own (dist/tokens.mjs), loaded on
   the first login or Bearer token: a device polled without a password never loads it. */

/** What a token says: who it is for, and until when (seconds since the epoch). */
export interface TokenClaims {
  sub: string;
  iat: number;
  exp: number;
  /** `cloud` for a user the controller vouched for (`POST /api/v1/auth/cloud`), with their role on the router; absent for an account. */
  dom?: 'cloud';
  role?: string;
}

/**
 * Signs claims as an HS256 JWT.
 *
 * @example
 * await signToken({ sub: 'paradrop', iat: 1700000000, exp: 1700003600 }, key) // 'eyJhbGciOiJIUzI1NiIs…'
 */
export function signToken(claims: TokenClaims, key: webcrypto.CryptoKey): Promise<string> {
  return sign({ ...claims }, key, 'HS256');
}

/**
 * The claims of a token signed with `key`, or null for any other token. Whether it has expired is the
 * policy's to say, on its clock (runtime/auth/policy.ts: the emulator's tokens expire in emulated
 * time), not the real one hono/jwt would read.
 *
 * @example
 * await verifyToken(token, key) // { sub: 'paradrop', iat: 1700000000, exp: 1700003600 }
 */
export async function verifyToken(token: string, key: webcrypto.CryptoKey): Promise<TokenClaims | null> {
  try {
    const claims = await verify(token, key, { alg: 'HS256', exp: false, iat: false, nbf: false });
    if (typeof claims.sub !== 'string' || typeof claims.exp !== 'number') return null;
    const known = { sub: claims.sub, iat: typeof claims.iat === 'number' ? claims.iat : 0, exp: claims.exp };
    return claims.dom === 'cloud' && typeof claims.role === 'string' ? { ...known, dom: 'cloud', role: claims.role } : known;
  } catch {
    return null;
  }
}
