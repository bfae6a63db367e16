/** snapd's REST API, which ParaDrop's daemon passes on below `/snapd/` (`DeviceServices.snapd`). */

/** Where snapd listens on a device that runs it; serve's `--snapd-socket`. */
export const DEFAULT_SNAPD_SOCKET = '/run/snapd.socket';

/**
 * One request for snapd, as the client sent it below `/snapd`.
 *
 * @example
 * { method: 'POST', target: '/v2/interfaces', contentType: 'application/json', body: new TextEncoder().encode('{"action":"connect"}') }
 */
export interface SnapdRequest {
  method: string;
  /** The path below `/snapd` and the query, as sent (percent-encoded): `/v2/interfaces?select=all`. */
  target: string;
  /** The request's `Content-Type`; null without one. */
  contentType: string | null;
  /** The request's body; null without one. */
  body: Uint8Array | null;
}

/** snapd's answer as it gave it: its status, its `Content-Type` and its body (JSON for every route pdtools uses). */
export interface SnapdAnswer {
  status: number;
  contentType: string;
  body: Uint8Array;
}
