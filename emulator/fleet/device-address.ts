/**
 * Which device of a fleet a request names, and the path on that device: `/devices/<id>/api/v1/…`,
 * or `Host: <id>.<domain>` with the path as it is (issue 33's contract). The one reading of a fleet
 * request's address, for the fleet's HTTP app and for its Lambda functions.
 */

/** A device a request names: its id as given (not yet checked against the fleet), and the path below it. */
export interface DeviceAddress {
  id: string;
  /** The path on the device: `/api/v1/…` or `/_chutebox/…`, `/` for none. */
  path: string;
  /** Whether the path named the device (`/devices/<id>/…`), rather than the host. */
  prefixed: boolean;
}

/** Where a device's API and admin routes are: `/devices/<id>/api/v1/…`, `/devices/<id>/_chutebox/…`. */
const DEVICE_PATH = /^\/devices\/([^/]+)(\/.*)?$/;

/**
 * The device that `Host: <id>.<domain>` (its port ignored) or else the path `/devices/<id>/…` names;
 * null when neither does.
 *
 * @param path the request's path as sent (percent-encoded), without its query.
 * @param domain the fleet's domain, when its devices answer by host too.
 * @example
 * deviceAddress('/devices/router-7/api/v1/chutes', undefined, undefined) // { id: 'router-7', path: '/api/v1/chutes', prefixed: true }
 * deviceAddress('/api/v1/chutes', 'router-7.fleet.test:8080', 'fleet.test') // { id: 'router-7', path: '/api/v1/chutes', prefixed: false }
 */
export function deviceAddress(path: string, host: string | null | undefined, domain: string | undefined): DeviceAddress | null {
  if (domain !== undefined && host) {
    const name = host.replace(/:\d+$/, '').toLowerCase();
    const suffix = `.${domain.toLowerCase()}`;
    if (name.endsWith(suffix)) return { id: name.slice(0, -suffix.length), path, prefixed: false };
  }
  const matched = DEVICE_PATH.exec(path);
  if (matched === null) return null;
  let id: string;
  try {
    id = decodeURIComponent(matched[1]!);
  } catch {
    // A malformed escape names no device of the fleet.
    id = matched[1]!;
  }
  return { id, path: matched[2] ?? '/', prefixed: true };
}
