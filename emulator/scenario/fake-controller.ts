/** The apitoken the fake controller refuses (401), to try a refusal in the emulator. */
export const REFUSED_APITOKEN = 'refuse';

/** The router id the fake controller does not know (404), to try an unknown router in the emulator. */
export const UNKNOWN_ROUTER_ID = 'unknown-router';

/** What the fake controller has received. */
export interface FakeControllerLog {
  /** Credential checks answered (`GET …/api/routers/<id>`), accepted or not. */
  checks: number;
  /** Telemetry reports delivered (`POST …/api/routers/<id>/telemetry`). */
  reports: number;
  /** The last report delivered, decoded, or null. */
  lastReport: unknown;
  /** The router id of the last report delivered, or null. */
  lastRouterId: string | null;
  /** How many routers (by router id) have delivered a report, counted up to the `routers` it was made to count. */
  routers: number;
}

/** The built-in cloud controller of the emulator: a `fetch` that answers without a socket. */
export interface FakeController {
  fetch: typeof globalThis.fetch;
  /** A copy of what it has received so far. */
  log(): FakeControllerLog;
}

/** The user the fake controller gives no rights on any router (a guest), to try a refused cloud login. */
export const GUEST_EMAIL = 'guest@controller.invalid';

/** The key of the fake controller's user tokens: known to all, as the fake controller vouches for anyone. */
const USER_TOKEN_KEY = 'chutebox-fake-controller';
const USER_TOKEN_PREFIX = 'fake-user.';

/**
 * The token the fake controller issues to the user `email` (`POST …/auth/local`):
 * `fake-user.<email, base64url>.<HMAC-SHA-256 of the email with the key chutebox-fake-controller, base64url>`.
 *
 * @example
 * await fakeUserToken('dev@example.com') // 'fake-user.ZGV2QGV4YW1wbGUuY29t.q3…'
 */
export async function fakeUserToken(email: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(USER_TOKEN_KEY), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(email)));
  return `${USER_TOKEN_PREFIX}${base64url(encoder.encode(email))}.${base64url(mac)}`;
}

/** The email of a user token the fake controller issued; null for any other token. */
async function userOfToken(token: string): Promise<string | null> {
  const [, encoded = ''] = token.split('.');
  let email: string;
  try {
    email = new TextDecoder().decode(Uint8Array.from(atob(encoded.replaceAll('-', '+').replaceAll('_', '/')), (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
  return email !== '' && (await fakeUserToken(email)) === token ? email : null;
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

const ROUTER_PATH = /\/api\/routers\/([^/]+)(\/telemetry)?\/?$/;

/**
 * A fake ParaDrop controller behind any base URL, answering what chutebox asks
 * (runtime/controller/client.ts):
 * - `GET …/api/routers/<id>` with `Authorization: Bearer <token>`: 200 `{ _id: <id>, name: <id> }`
 *   for any router id and any non-empty token, but 401 for the token `refuse` (`REFUSED_APITOKEN`) and
 *   404 for the router id `unknown-router` (`UNKNOWN_ROUTER_ID`);
 * - `POST …/api/routers/<id>/telemetry` with a JSON body and an accepted token: 200 `{}`, and the
 *   report is counted and kept as the last one (see `log`); a body that is not JSON is a 400;
 * - `POST …/auth/local` with `{email, password}` (as ParaDrop's controller logs a user in): 200
 *   `{token}`, the user token of `fakeUserToken(email)`, for any email and any non-empty password;
 * - `GET …/api/users/me` with a user token: 200 `{_id: 'user-<email>', email}`; any other token 401;
 * - `GET …/api/routers/<id>` with a user token: the router as above with `access_rights`
 *   `[{user_id, role: 'owner'}]` for its user, none for `guest@controller.invalid` (`GUEST_EMAIL`);
 *   a token of the user-token form that the fake controller did not issue: 401;
 * - anything else: 404; a missing or empty bearer token: 401.
 * An aborted request rejects with its signal's reason, as fetch does. Nothing is kept but the counts
 * and the last report, so memory stays bounded however long the emulator runs.
 *
 * @example
 * const controller = fakeController();
 * await controller.fetch('http://controller.invalid/api/routers/r1', { headers: { authorization: 'Bearer t0k3n' } }); // 200
 * controller.log().reports // 0
 */
export function fakeController(options: { routers?: number } = {}): FakeController {
  const log: FakeControllerLog = { checks: 0, reports: 0, lastReport: null, lastRouterId: null, routers: 0 };
  /** The routers that delivered a report, up to `options.routers` (default 1000) of them: bounded, as a controller of a fleet counts its fleet. */
  const reported = new Set<string>();
  const most = options.routers ?? 1000;

  async function answer(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (/\/auth\/local\/?$/.test(path) && request.method === 'POST') return userLogin(request);
    const bearer = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    const user = bearer?.startsWith(USER_TOKEN_PREFIX) === true ? await userOfToken(bearer) : null;
    if (/\/api\/users\/me\/?$/.test(path)) return user === null ? json(401, { error: 'invalid token' }) : json(200, { _id: `user-${user}`, email: user });
    if (bearer?.startsWith(USER_TOKEN_PREFIX) === true && user === null) return json(401, { error: 'invalid token' });
    const match = ROUTER_PATH.exec(path);
    if (match === null) return json(404, { error: 'not found' });
    const routerId = decodeURIComponent(match[1]!);
    const telemetry = match[2] !== undefined;
    if (!telemetry && request.method !== 'GET') return json(405, { error: 'method not allowed' });
    if (telemetry && request.method !== 'POST') return json(405, { error: 'method not allowed' });
    const token = bearer;
    if (!telemetry) log.checks += 1;
    if (token === undefined || token === REFUSED_APITOKEN) return json(401, { error: 'invalid token' });
    if (routerId === UNKNOWN_ROUTER_ID) return json(404, { error: `no router ${routerId}` });
    if (!telemetry && user !== null) {
      const rights = user === GUEST_EMAIL ? [] : [{ user_id: `user-${user}`, role: 'owner' }];
      return json(200, { _id: routerId, name: routerId, access_rights: rights });
    }
    if (!telemetry) return json(200, { _id: routerId, name: routerId });
    let report: unknown;
    try {
      report = JSON.parse(await request.text());
    } catch {
      return json(400, { error: 'the report is not JSON' });
    }
    log.reports += 1;
    log.lastReport = report;
    log.lastRouterId = routerId;
    if (reported.size < most) reported.add(routerId);
    log.routers = reported.size;
    return json(200, {});
  }

  return {
    async fetch(input, init) {
      const request = new Request(input, init);
      request.signal.throwIfAborted();
      return answer(request);
    },
    log: () => structuredClone(log),
  };
}

/** `POST …/auth/local`: a user token for any email and non-empty password. */
async function userLogin(request: Request): Promise<Response> {
  let body: { email?: unknown; password?: unknown };
  try {
    body = (await request.json()) as typeof body;
  } catch {
    return json(400, { error: 'the body is not JSON' });
  }
  if (typeof body.email !== 'string' || body.email === '' || typeof body.password !== 'string' || body.password === '') {
    return json(401, { error: 'an email and a password are needed' });
  }
  return json(200, { token: await fakeUserToken(body.email) });
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}
