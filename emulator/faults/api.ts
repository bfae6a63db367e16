import type { Context, Hono } from 'hono';
import { decodeBody } from '../../functions/core/body/decode.ts';
import { invalidInput } from '../../functions/core/validate.ts';
import { methodNotAllowed } from '../../functions/core/route.ts';
import type { AuthPolicy } from '../../runtime/auth/policy.ts';
import { authorizer } from '../../runtime/http/auth.ts';
import { corsPolicy } from '../../runtime/http/cors.ts';
import { limitedBody } from '../../runtime/http/request-body.ts';
import type { FaultEngine } from './engine.ts';

/** The fault rules: `GET` lists them, `POST` adds one, `PATCH` adds several, `DELETE` removes all. */
export const FAULTS_PATH = '/_chutebox/faults';

/** One rule: `GET`, `PATCH` (a JSON merge patch), `DELETE`. */
const FAULT_PATH = `${FAULTS_PATH}/:id`;

/** The largest body of a request to `FAULTS_PATH`: a hundred rules of several hundred bytes each fit. */
export const FAULTS_BODY_BYTES = 256 * 1024;

export interface FaultsApiOptions {
  faults: FaultEngine;
  /** The policy of the rest of the API; null serves every request without credentials, if it is local (`--no-auth`). */
  auth: AuthPolicy | null;
  /** As `createApp`'s `corsOrigin`. */
  corsOrigin?: string;
}

/**
 * Mounts the fault rules' admin API (docs/emulator.md#faults), behind the same auth policy as the
 * device API, as LocalStack's `/_localstack/chaos/faults`:
 * - `GET /_chutebox/faults`: 200 `{"rules": [...]}`, in the order they apply;
 * - `POST /_chutebox/faults` with one rule: 201 and the rule with its `id` (and `Location`);
 * - `PATCH /_chutebox/faults` with a list of rules: adds them all or none, 200 `{"rules": [...]}`;
 * - `DELETE /_chutebox/faults`: 204, no rule left;
 * - `GET /_chutebox/faults/<id>`: 200 and the rule; `PATCH` with a JSON merge patch (RFC 7386, null
 *   removes a field): 200 and the rule, its counts kept; `DELETE`: 204; a 404 problem for an unknown id.
 * A rule that does not check is a 422 naming each field (`body.effect.status`), a body that is not
 * JSON a 400 or 415, over `FAULTS_BODY_BYTES` a 413, an id taken a 409; nothing changes then. Another
 * method is a 405 naming the ones allowed.
 */
export function mountFaultsApi(app: Hono, options: FaultsApiOptions): void {
  const { faults } = options;
  const cors = corsPolicy(options.corsOrigin);
  const authorize = authorizer(options.auth, cors.listed);
  const answer = (c: Context, status: number, body?: unknown, headers: Record<string, string> = {}) =>
    new Response(body === undefined ? null : JSON.stringify(body), {
      status,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json', 'cache-control': 'no-store' }),
        ...headers,
        ...cors.headers(c.req.header('origin')),
      },
    });
  const readText = limitedBody(FAULTS_BODY_BYTES, (c) => c.req.text());
  /** The request's body, decoded; after the credentials. */
  const body = async (c: Context) => {
    await authorize(c);
    return decodeBody(c.req.header('content-type'), await readText(c), FAULTS_BODY_BYTES);
  };
  const rules = async () => ({ rules: await faults.list() });

  app.get(FAULTS_PATH, async (c) => {
    await authorize(c);
    return answer(c, 200, await rules());
  });
  app.post(FAULTS_PATH, async (c) => {
    const rule = await faults.add(await body(c), 'body');
    return answer(c, 201, rule, { location: `${FAULTS_PATH}/${rule.id}` });
  });
  app.patch(FAULTS_PATH, async (c) => {
    const list = await body(c);
    if (!Array.isArray(list)) throw invalidInput('the rules', [{ path: 'body', message: 'must be a list of rules to add (POST adds one)' }]);
    await faults.addAll(list, 'body');
    return answer(c, 200, await rules());
  });
  app.delete(FAULTS_PATH, async (c) => {
    await authorize(c);
    await faults.clear();
    return answer(c, 204);
  });
  app.get(FAULT_PATH, async (c) => {
    await authorize(c);
    return answer(c, 200, await faults.get(c.req.param('id')));
  });
  app.patch(FAULT_PATH, async (c) => answer(c, 200, await faults.patch(c.req.param('id'), await body(c), 'body')));
  app.delete(FAULT_PATH, async (c) => {
    await authorize(c);
    await faults.remove(c.req.param('id'));
    return answer(c, 204);
  });
  app.all(FAULTS_PATH, (c) => {
    throw methodNotAllowed(c.req.method, 'GET, POST, PATCH, DELETE');
  });
  app.all(FAULT_PATH, (c) => {
    throw methodNotAllowed(c.req.method, 'GET, PATCH, DELETE');
  });
}
