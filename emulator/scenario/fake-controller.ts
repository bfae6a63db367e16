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

const ROUTER_PATH = /\/api\/routers\/([^/]+)(\/telemetry)?\/?$/;

/**
 * A fake ParaDrop controller behind any base URL, answering what chutebox asks
 * (runtime/controller/client.ts):
 * - `GET …/api/routers/<id>` with `Authorization: Bearer <token>`: 200 `{ _id: <id>, name: <id> }`
 *   for any router id and any non-empty token, but 401 for the token `refuse` (`REFUSED_APITOKEN`) and
 *   404 for the router id `unknown-router` (`UNKNOWN_ROUTER_ID`);
 * - `POST …/api/routers/<id>/telemetry` with a JSON body and an accepted token: 200 `{}`, and the
 *   report is counted and kept as the last one (see `log`); a body that is not JSON is a 400;
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
    const match = ROUTER_PATH.exec(new URL(request.url).pathname);
    if (match === null) return json(404, { error: 'not found' });
    const routerId = decodeURIComponent(match[1]!);
    const telemetry = match[2] !== undefined;
    if (!telemetry && request.method !== 'GET') return json(405, { error: 'method not allowed' });
    if (telemetry && request.method !== 'POST') return json(405, { error: 'method not allowed' });
    const token = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    if (!telemetry) log.checks += 1;
    if (token === undefined || token === REFUSED_APITOKEN) return json(401, { error: 'invalid token' });
    if (routerId === UNKNOWN_ROUTER_ID) return json(404, { error: `no router ${routerId}` });
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

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}
