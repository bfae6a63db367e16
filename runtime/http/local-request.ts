// What a request from a browser must be: served without credentials, addressed to this machine by a
// loopback name and not sent by a web page of another origin; with Basic credentials, not sent by a
// page of another origin either, unless --cors-origin lists it. A bundle of its own
// (dist/local-request.mjs), loaded on the first such request whose Host was not found local before,
// or with Basic credentials and an Origin. See docs/decisions/0040-browsers-and-a-device-without-a-password.md.
import type { IncomingHttpHeaders } from 'node:http';
import { HttpProblem } from '../../functions/core/problem.ts';
import { isLoopback } from '../auth/loopback.ts';

/** A `Host` header: a bracketed IPv6 address or a name (or IPv4 address), then an optional port. */
const HOST = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+))(?::\d{1,5})?$/;

/** What to do about a refusal: the same for both reasons. */
const REMEDY =
  'set a password with `chutebox passwd` on the device (on `chutebox emulate`, leave out --no-auth and log in as paradrop with an empty password): ' +
  'requests then need credentials, which no page of another site has';

/**
 * Checks a request served without credentials: its `Host` must be `localhost` or a loopback address
 * (`isLocalHost`), or a page on any site could reach the server under a name of its own that it
 * points at 127.0.0.1 (DNS rebinding); and its `Origin`, when it has one, must be its own
 * (`http://<Host>`), or a page on any site could drive the server from the browser on this machine.
 *
 * @throws HttpProblem 403 saying which, and to set a password.
 * @example
 * assertLocal({ host: '127.0.0.1:8080' }) // passes
 * assertLocal({ host: '127.0.0.1:8080', origin: 'http://evil.example' }) // throws a 403
 */
export function assertLocal(headers: IncomingHttpHeaders): void {
  const { host, origin } = headers;
  if (!isLocalHost(host)) {
    throw new HttpProblem(
      403,
      `this server answers requests without credentials only when they name it localhost or a loopback address (Host 127.0.0.1:<port>), as a page of another site could name it otherwise; ${REMEDY}`,
    );
  }
  if (origin !== undefined && origin !== `http://${host}`) {
    throw new HttpProblem(
      403,
      `this server answers requests without credentials only from its own pages, not from a page of another origin (${origin}); ${REMEDY}`,
    );
  }
}

/**
 * Whether a `Host` header names this machine whatever DNS answers, with or without a port:
 * `localhost` (which browsers and resolvers answer themselves), an address in 127.0.0.0/8 or `[::1]`,
 * or `0.0.0.0` or `[::]`, which reach this machine too (`serve` prints `http://0.0.0.0:8080` by
 * default). Other names under `.localhost` are not: not every browser keeps them from DNS.
 *
 * @example
 * isLocalHost('localhost:8080') // true
 * isLocalHost('[::1]:8080') // true
 * isLocalHost('rebind.evil.example:8080') // false
 */
export function isLocalHost(host: string | undefined): boolean {
  const [, ipv6, name] = HOST.exec(host ?? '') ?? [];
  if (ipv6 !== undefined) return ipv6 === '::' || isLoopback(ipv6);
  return name !== undefined && (name.toLowerCase() === 'localhost' || name === '0.0.0.0' || isLoopback(name));
}

/**
 * Checks a request with Basic credentials and an `Origin`: a browser that has answered the Basic
 * prompt (of `/docs`) sends the credentials by itself with every request to the server, the form
 * that a page of any site submits to it too. So the page must be the server's own (its `Origin`
 * names the `Host`, over http or https, as behind a proxy) or one `--cors-origin` lists by name.
 *
 * @throws HttpProblem 403 saying to log in and send the token as Bearer, which no browser adds by itself.
 * @example
 * assertOwnPage({ host: 'router.lan:8080', origin: 'https://router.lan:8080', authorization: 'Basic …' }, []) // passes
 * assertOwnPage({ host: 'router.lan:8080', origin: 'http://evil.example', authorization: 'Basic …' }, []) // throws a 403
 */
export function assertOwnPage(headers: IncomingHttpHeaders, listed: readonly string[]): void {
  const { host, origin = '' } = headers;
  if (listed.includes(origin) || (host !== undefined && originHost(origin) === host.toLowerCase())) return;
  throw new HttpProblem(
    403,
    `this server takes Basic credentials only from its own pages and the origins listed with --cors-origin, not from a page of ${origin}, ` +
      'as a browser sends the ones it remembers with the forms of any page: a page of another origin must log in with POST /api/v1/auth/local ' +
      'and send the token as "Authorization: Bearer <token>"',
  );
}

/** The host (and port) of an http or https origin, lower case, or undefined for another one (`null`, a file). */
function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : undefined;
  } catch {
    return undefined;
  }
}
