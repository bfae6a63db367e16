import type { FaultMatch } from './rule.ts';

/** A request as a rule matches it. */
export interface FaultRequest {
  method: string;
  /** The URL's path, as sent (percent-encoded). */
  path: string;
}

/** The operations of the API by operationId, each one method and path (OpenAPI's `{name}` parameters). */
export type Operations = ReadonlyMap<string, { method: string; path: string }>;

/** A rule's `match` made ready: whether a request is one it sees. */
export type RequestTest = (request: FaultRequest) => boolean;

/**
 * The test of a rule's `match`: the method, the path pattern (`*` one segment, a last `**` any rest,
 * segments compared decoded; a trailing slash does not count), the operation's method and path, and
 * the chute, network and station the path names (`pathSubjects`). Every field given must hold.
 *
 * @param operation the method and path of `match.operation`, looked up by the caller.
 * @example
 * requestTest({ method: 'GET', path: '/api/v1/chutes/*' + '/networks/*' + '/stations' })({ method: 'GET', path: '/api/v1/chutes/hotspot/networks/guest/stations' }) // true
 */
export function requestTest(match: FaultMatch, operation?: { method: string; path: string }): RequestTest {
  const tests: RequestTest[] = [];
  if (match.method !== undefined) tests.push(methodIs(match.method));
  if (match.path !== undefined) tests.push(pathIs(match.path));
  if (operation !== undefined) tests.push(methodIs(operation.method), pathIs(operation.path.replace(/\{[^/}]+\}/g, '*')));
  const { chute, network } = match;
  const station = match.station?.toLowerCase();
  if (chute !== undefined || network !== undefined || station !== undefined) {
    tests.push((request) => {
      const named = pathSubjects(request.path);
      return (
        (chute === undefined || named.chute === chute) &&
        (network === undefined || named.network === network) &&
        (station === undefined || named.station === station)
      );
    });
  }
  return (request) => tests.every((test) => test(request));
}

/** What a path names: the chute after `chutes` (or ParaDrop's `chute_logs`, `sockjs/logs`), the network after `networks`, the station after `stations` (lower case). */
export function pathSubjects(path: string): { chute?: string; network?: string; station?: string } {
  const parts = segments(path);
  const named: { chute?: string; network?: string; station?: string } = {};
  for (let i = 0; i + 1 < parts.length; i++) {
    const part = parts[i]!;
    if (part === 'chutes' || part === 'chute_logs' || (part === 'logs' && parts[i - 1] === 'sockjs')) named.chute ??= parts[i + 1];
    else if (part === 'networks' && named.chute !== undefined) named.network ??= parts[i + 1];
    else if (part === 'stations' && named.network !== undefined) named.station ??= parts[i + 1]!.toLowerCase();
  }
  return named;
}

function methodIs(method: string): RequestTest {
  return (request) => request.method === method;
}

function pathIs(pattern: string): RequestTest {
  const want = segments(pattern);
  const rest = want.at(-1) === '**';
  if (rest) want.pop();
  return (request) => {
    const got = segments(request.path);
    if (rest ? got.length < want.length : got.length !== want.length) return false;
    return want.every((segment, i) => segment === '*' || segment === got[i]);
  };
}

/** A path's segments, decoded where they can be, without empty ones. */
function segments(path: string): string[] {
  return path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
}
