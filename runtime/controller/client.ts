import type { CloudUser, ProvisionCredentials } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';

/** How long the controller has to answer a request, body included, unless told otherwise. */
export const DEFAULT_CONTROLLER_TIMEOUT_MS = 10_000;

/** The most bytes of a controller's answer that are read; a longer answer is a 502. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** The most bytes of a release's archive that are read (a built `dist/` is a few MiB); a longer one is a 502. */
export const MAX_RELEASE_BYTES = 64 * 1024 * 1024;

/** How long a release's archive has to come, whole. */
export const RELEASE_TIMEOUT_MS = 300_000;

/**
 * A release of chutebox the controller offers a router (docs/decisions/0062-updates-and-snapd.md): its
 * version, the SHA-256 of its archive (a tar of a built `dist/`, gzipped or not) and where the archive
 * is, on the controller's own origin.
 */
export interface RuntimeRelease {
  version: string;
  /** Lowercase hex. */
  sha256: string;
  /** Absolute, or relative to the controller's base URL. */
  url: string;
}

export interface ControllerClientOptions {
  /** The fetch to use; default the global one, looked up at each request (so test interceptors apply). */
  fetch?: typeof globalThis.fetch;
  /** Milliseconds the controller has to answer a request, body included (default 10 s). */
  timeoutMs?: number;
  /**
   * When given, every request goes to this base URL instead of the credentials' `pdserver` (the
   * emulator's `--controller URL`), e.g. `http://127.0.0.1:8000`.
   */
  baseUrl?: string;
}

/** The HTTP side of ParaDrop's controller protocol, as chutebox speaks it. */
export interface ControllerClient {
  /**
   * Asks the controller whether it knows the router: `GET <pdserver>/api/routers/<routerId>` with
   * `Authorization: Bearer <apitoken>`. Answers when it does (200 with a JSON object whose `_id` or
   * `id` is `routerId`).
   *
   * @throws HttpProblem 422 naming `body.apitoken` (401, 403) or `body.routerId` (404); 502 for any
   *   other status, a network error, a redirect, an answer that is too long, not JSON or about another
   *   router; 504 when no answer comes within the timeout.
   */
  check(credentials: ProvisionCredentials): Promise<void>;
  /**
   * Delivers one telemetry report: `POST <pdserver>/api/routers/<routerId>/telemetry`, the report as
   * JSON, the same bearer header. Answers when the controller answered 2xx.
   *
   * @throws HttpProblem 502 for any other status or a network error, 504 when no answer comes in
   *   time; `signal`'s reason when it aborts the request.
   */
  sendReport(credentials: ProvisionCredentials, report: unknown, signal?: AbortSignal): Promise<void>;
  /**
   * The release the controller offers the router: `GET <pdserver>/api/routers/<routerId>/runtime`, the
   * same bearer header; null when it offers none (204, or 404 from a controller that has no releases).
   *
   * @throws HttpProblem 502 for any other status, an answer that is no `RuntimeRelease`, a network
   *   error; 504 when no answer comes in time.
   */
  release(credentials: ProvisionCredentials): Promise<RuntimeRelease | null>;
  /**
   * The release's archive, within `MAX_RELEASE_BYTES` and `RELEASE_TIMEOUT_MS`, answered only once its
   * SHA-256 is the release's. The bearer header goes only to the controller's own origin: a release
   * elsewhere is refused before any request.
   *
   * @throws HttpProblem 502 for an archive elsewhere, any status but 200, too many bytes, a network
   *   error or another SHA-256; 504 when it does not come whole in time.
   */
  download(credentials: ProvisionCredentials, release: RuntimeRelease): Promise<Uint8Array>;
  /**
   * Who the user of a token the controller issued is, on the router of `credentials`, as ParaDrop's
   * daemon asks: `GET <pdserver>/api/users/me` (the user: `email`, `_id`), then
   * `GET <pdserver>/api/routers/<routerId>` (its `access_rights`: `[{user_id, role}]`), both with
   * `Authorization: Bearer <token>` instead of the device's apitoken.
   *
   * @throws HttpProblem 401 when the controller refuses the token (401, 403, 404), 403 when the
   *   router's `access_rights` give the user no role; 502 and 504 as `check`.
   */
  verifyUser(credentials: ProvisionCredentials, token: string): Promise<CloudUser>;
}

/**
 * The URL of a router at the controller, or of something below it.
 *
 * @example
 * routerUrl('https://paradrop.org/', 'r1', 'telemetry') // 'https://paradrop.org/api/routers/r1/telemetry'
 */
export function routerUrl(base: string, routerId: string, below?: string): string {
  return `${trimSlashes(base)}/api/routers/${encodeURIComponent(routerId)}${below === undefined ? '' : `/${below}`}`;
}

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * A client of the cloud controller (see `ControllerClient`). Requests never follow redirects (a
 * redirect would carry the token elsewhere, or turn a POST into a GET): a 3xx answer is a 502 that
 * names where it points. The apitoken never appears in an error message.
 *
 * @example
 * const client = controllerClient({ timeoutMs: 5000 });
 * await client.check({ routerId: 'r1', apitoken: 't0k3n', pdserver: 'https://paradrop.org', wampRouter: 'ws://paradrop.org:9086/ws' });
 */
export function controllerClient(options: ControllerClientOptions = {}): ControllerClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CONTROLLER_TIMEOUT_MS;
  const fetch: typeof globalThis.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  /**
   * One request and its answer's body: up to `read` bytes (null when longer; none read for 0), within
   * `wait` ms (the controller timeout by default).
   */
  async function exchange(
    credentials: ProvisionCredentials,
    url: string,
    init: { method: 'GET' | 'POST'; body?: string; read: number; wait?: number; accept?: string },
    signal?: AbortSignal,
  ): Promise<{ response: Response; bytes: Uint8Array | null }> {
    const where = controllerName(credentials);
    const abort = new AbortController();
    let timedOut = false;
    const wait = init.wait ?? timeoutMs;
    // A timer of our own, not AbortSignal.timeout: fake timers drive it in tests, like the sender's.
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort(new Error('timed out'));
    }, wait);
    const forward = () => abort.abort(signal!.reason);
    signal?.addEventListener('abort', forward, { once: true });
    try {
      signal?.throwIfAborted();
      const headers: Record<string, string> = { accept: init.accept ?? 'application/json', authorization: `Bearer ${credentials.apitoken}` };
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(url, { method: init.method, headers, body: init.body, redirect: 'manual', signal: abort.signal });
      const bytes = init.read > 0 ? await readCapped(response, init.read) : (discard(response), new Uint8Array(0));
      return { response, bytes };
    } catch (error) {
      if (timedOut) throw new HttpProblem(504, `${where} did not answer within ${wait / 1000} s`);
      if (signal?.aborted) throw signal.reason;
      if (error instanceof HttpProblem) throw error;
      throw new HttpProblem(502, `${where} could not be reached: ${networkReason(error)}`);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    }
  }

  function controllerName(credentials: ProvisionCredentials): string {
    return `the controller at ${trimSlashes(options.baseUrl ?? credentials.pdserver)}`;
  }

  function base(credentials: ProvisionCredentials): string {
    return options.baseUrl ?? credentials.pdserver;
  }

  /** The 502 for an answer that is neither a success nor a refusal. */
  function unexpectedStatus(credentials: ProvisionCredentials, response: Response, request: string): HttpProblem {
    const where = controllerName(credentials);
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      const location = response.headers.get('location');
      const to = location === null ? '' : ` to ${location}`;
      return new HttpProblem(502, `${where} answered ${request} with a redirect${to}; give the controller's own URL as pdserver`);
    }
    return new HttpProblem(502, `${where} answered ${request} with ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  }

  /** The JSON object a controller answers a user's request with; 401 when it refuses the user's token. */
  async function userRecord(asUser: ProvisionCredentials, url: string, request: string): Promise<Record<string, unknown>> {
    const { response, bytes } = await exchange(asUser, url, { method: 'GET', read: MAX_ANSWER_BYTES });
    if ([401, 403, 404].includes(response.status)) throw new HttpProblem(401, `${controllerName(asUser)} refused the token (${request}: ${response.status})`);
    if (response.status !== 200) throw unexpectedStatus(asUser, response, request);
    const record = jsonAnswer(asUser, request, bytes);
    if (typeof record !== 'object' || record === null || Array.isArray(record))
      throw new HttpProblem(502, `${controllerName(asUser)} answered ${request} with no object`);
    return record as Record<string, unknown>;
  }

  return {
    async check(credentials) {
      const where = controllerName(credentials);
      const request = `GET /api/routers/${credentials.routerId}`;
      const { response, bytes } = await exchange(credentials, routerUrl(base(credentials), credentials.routerId), { method: 'GET', read: MAX_ANSWER_BYTES });
      const { status } = response;
      if (status === 401 || status === 403) {
        throw new HttpProblem(422, `${where} refused the credentials (${status})`, {
          errors: [{ path: 'body.apitoken', message: `was refused by the controller (${status})` }],
        });
      }
      if (status === 404) {
        throw new HttpProblem(422, `${where} knows no router ${credentials.routerId} (404)`, {
          errors: [{ path: 'body.routerId', message: 'is not a router the controller knows (404)' }],
        });
      }
      if (status !== 200) throw unexpectedStatus(credentials, response, request);
      const record = jsonAnswer(credentials, request, bytes);
      if (!isRouterRecord(record, credentials.routerId)) {
        throw new HttpProblem(502, `${where} answered ${request} with a record that is not router ${credentials.routerId} (no _id or id equal to it)`);
      }
    },

    async verifyUser(credentials, token) {
      const asUser = { ...credentials, apitoken: token };
      const user = await userRecord(asUser, `${trimSlashes(base(credentials))}/api/users/me`, 'GET /api/users/me');
      if (typeof user.email !== 'string' || user.email === '' || typeof user._id !== 'string') {
        throw new HttpProblem(502, `${controllerName(credentials)} answered GET /api/users/me without the user's email and _id`);
      }
      const router = await userRecord(asUser, routerUrl(base(credentials), credentials.routerId), `GET /api/routers/${credentials.routerId}`);
      const role = roleOf(router.access_rights, user._id);
      if (role === null) throw new HttpProblem(403, `the controller gives ${user.email} no rights on router ${credentials.routerId}`);
      return { email: user.email, role };
    },

    async sendReport(credentials, report, signal) {
      const request = `POST /api/routers/${credentials.routerId}/telemetry`;
      const url = routerUrl(base(credentials), credentials.routerId, 'telemetry');
      const { response } = await exchange(credentials, url, { method: 'POST', body: JSON.stringify(report), read: 0 }, signal);
      if (!response.ok) throw unexpectedStatus(credentials, response, request);
    },

    async release(credentials) {
      const request = `GET /api/routers/${credentials.routerId}/runtime`;
      const url = routerUrl(base(credentials), credentials.routerId, 'runtime');
      const { response, bytes } = await exchange(credentials, url, { method: 'GET', read: MAX_ANSWER_BYTES });
      if (response.status === 204 || response.status === 404) return null;
      if (response.status !== 200) throw unexpectedStatus(credentials, response, request);
      const release = jsonAnswer(credentials, request, bytes);
      if (!isRelease(release)) {
        throw new HttpProblem(502, `${controllerName(credentials)} answered ${request} with no release: {version, sha256 (64 hex digits), url}`);
      }
      return release;
    },

    async download(credentials, release) {
      const where = controllerName(credentials);
      const url = new URL(release.url, `${trimSlashes(base(credentials))}/`);
      if (url.origin !== new URL(base(credentials)).origin) {
        throw new HttpProblem(502, `${where} offers release ${release.version} at another origin (${url.origin}): its token goes to no other`);
      }
      const request = `GET ${url.pathname}`;
      const { response, bytes } = await exchange(credentials, url.href, { method: 'GET', read: MAX_RELEASE_BYTES, wait: RELEASE_TIMEOUT_MS, accept: '*/*' });
      if (response.status !== 200) throw unexpectedStatus(credentials, response, request);
      if (bytes === null) throw new HttpProblem(502, `${where} answered ${request} with more than ${MAX_RELEASE_BYTES / 1024 / 1024} MiB`);
      const digest = await sha256Hex(bytes);
      if (digest !== release.sha256) {
        throw new HttpProblem(502, `release ${release.version} from ${where} has SHA-256 ${digest}, not the ${release.sha256} the controller gave`);
      }
      return bytes;
    },
  };

  /** A controller's answer of at most `MAX_ANSWER_BYTES` as JSON. */
  function jsonAnswer(credentials: ProvisionCredentials, request: string, bytes: Uint8Array | null): unknown {
    const where = controllerName(credentials);
    if (bytes === null) throw new HttpProblem(502, `${where} answered ${request} with more than ${MAX_ANSWER_BYTES / 1024} KiB`);
    try {
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new HttpProblem(502, `${where} answered ${request} with something that is not JSON`);
    }
  }
}

/** Whether a controller's answer is a `RuntimeRelease`. */
function isRelease(value: unknown): value is RuntimeRelease {
  const release = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  return typeof release.version === 'string' && release.version !== '' && typeof release.url === 'string' && /^[0-9a-f]{64}$/.test(String(release.sha256));
}

/** The SHA-256 of `bytes` in lowercase hex, by Web Crypto (in every runtime of the emulator). */
async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The roles ParaDrop's controller gives, weakest first; a user with none of them on the router (a guest) has no rights. */
const ROLES = ['user', 'admin', 'owner'];

/** The strongest role `access_rights` (`[{user_id, role}]`) gives user `userId`; null for none. */
function roleOf(accessRights: unknown, userId: string): string | null {
  const roles = (Array.isArray(accessRights) ? accessRights : [])
    .filter((right): right is { user_id: string; role: string } => right?.user_id === userId && ROLES.includes(right?.role))
    .map((right) => right.role);
  return roles.length === 0 ? null : roles.reduce((best, role) => (ROLES.indexOf(role) > ROLES.indexOf(best) ? role : best));
}

/** Whether a controller's answer is the record of router `routerId` (MongoDB's `_id`, or `id`). */
function isRouterRecord(value: unknown, routerId: string): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return record._id === routerId || record.id === routerId;
}

/** A response body, or null when it is longer than `max` bytes (the rest is not read). */
async function readCapped(response: Response, max: number): Promise<Uint8Array | null> {
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > max) {
      discard(reader);
      return null;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(bytes);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}

/**
 * Lets the rest of a body go without waiting: a cancel can wait for whoever else reads the stream
 * (a tee in an interceptor), and the answer is already known. Answers '' (no text read).
 * Not `instanceof Response`: @hono/node-server replaces the global Response, so fetch's answers in
 * the runtime are not instances of it.
 */
function discard(body: Response | ReadableStreamDefaultReader<Uint8Array>): '' {
  const cancel = 'read' in body ? body.cancel() : body.body?.cancel();
  cancel?.catch(() => {});
  return '';
}

/**
 * Why a request failed below HTTP: fetch throws `TypeError('fetch failed')` whose `cause` says what
 * happened (`connect ECONNREFUSED 127.0.0.1:8000`, `getaddrinfo ENOTFOUND …`, or only a code).
 */
function networkReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (cause.message !== '') return cause.message;
    if (typeof code === 'string') return code;
  }
  return error.message;
}
