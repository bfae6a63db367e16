import type { Hono, MiddlewareHandler } from 'hono';
import { decodeBody } from '../../functions/core/body.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { matchPath } from '../../functions/core/route.ts';
import { CHALLENGE, type AuthPolicy } from '../auth/policy.ts';
import { clientAddress } from './client-address.ts';

/** ParaDrop's login endpoint. */
export const LOGIN_PATH = '/api/v1/auth/local';

/**
 * Middleware that lets a request through only when `policy.authorize` accepts it; the login
 * endpoint is exempt. Mount it before the body limit and the routes it protects.
 */
export function requireAuth(policy: AuthPolicy): MiddlewareHandler {
  return async (c, next) => {
    if (matchPath(LOGIN_PATH, c.req.path) === null) await policy.authorize(c.req.header('authorization'), clientAddress(c));
    await next();
  };
}

/**
 * Mounts `POST /api/v1/auth/local`, answering ParaDrop's login document.
 *
 * @example
 * // POST /api/v1/auth/local {"username":"paradrop","password":"pw"}
 * // → 200 {"username":"paradrop","success":true,"token":"eyJ…"} or 401 {"username":"paradrop","success":false}
 */
export function mountLogin(app: Hono, policy: AuthPolicy, bodyLimit: number): void {
  app.post(LOGIN_PATH, async (c) => {
    const { username, password } = credentials(decodeBody(c.req.header('content-type'), await c.req.text(), bodyLimit));
    const token = await policy.login(username, password, clientAddress(c));
    if (token === null) return c.json({ username, success: false }, 401, { 'www-authenticate': CHALLENGE });
    return c.json({ username, success: true, token });
  });
}

function credentials(body: unknown): { username: string; password: string } {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const errors = (['username', 'password'] as const)
    .filter((name) => typeof fields[name] !== 'string')
    .map((name) => ({ path: `body.${name}`, message: 'must be a string' }));
  if (errors.length > 0) throw new HttpProblem(400, 'a login needs a JSON body {"username": …, "password": …}', { errors });
  return { username: fields.username as string, password: fields.password as string };
}
