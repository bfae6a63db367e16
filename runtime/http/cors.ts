/** Response headers a page may read: the challenge, the lockout, the methods of a 405, the next page of a list and a GET's tag. */
const EXPOSE_HEADERS = 'WWW-Authenticate,Retry-After,Allow,Link,ETag';

/** The CORS side of every answer, for one `--cors-origin` setting (a preflight's: runtime/http/preflight.ts). */
export interface CorsPolicy {
  /** Whether every origin is allowed (`*`). */
  any: boolean;
  /** The origins listed by name (never `*`): trusted with Basic credentials too (runtime/http/auth.ts). */
  listed: readonly string[];
  /**
   * The CORS headers of an answer to a request from `origin` (its `Origin` header): a shared object,
   * never to be changed; copy it into the answer's headers.
   */
  headers(origin: string | undefined): Readonly<Record<string, string>>;
  /**
   * An answer's `headers` with the CORS headers of a request from `origin` after them. Made once for
   * frozen `headers` (every JSON answer's but a GET's, see functions/core/handler.ts) and the same CORS
   * headers, then given again: frozen too.
   */
  answerHeaders(headers: Readonly<Record<string, string>>, origin: string | undefined): Readonly<Record<string, string>>;
}

/**
 * CORS for `--cors-origin`: `*` (the default) or a comma-separated list of origins, answered the way
 * Hono's cors middleware answers them. Written out here because that middleware builds a Response
 * and its Headers for every request, then copies them into the real answer: work that no answer
 * needs (docs/decisions/0017-a-request-costs-what-its-answer-needs.md).
 *
 * @example
 * const cors = corsPolicy('https://a.example');
 * cors.headers('https://a.example') // { 'access-control-allow-origin': 'https://a.example', 'access-control-expose-headers': '…', vary: 'Origin' }
 * cors.headers('https://evil.example') // { 'access-control-expose-headers': '…', vary: 'Origin' }
 */
export function corsPolicy(setting: string | undefined): CorsPolicy {
  const origins = (setting ?? '*')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  const any = origins.length === 0 || origins.includes('*');
  const refused: Readonly<Record<string, string>> = Object.freeze({ 'access-control-expose-headers': EXPOSE_HEADERS, vary: 'Origin' });
  const allowed = new Map(origins.map((origin) => [origin, Object.freeze({ 'access-control-allow-origin': origin, ...refused })]));
  const everyone: Readonly<Record<string, string>> = Object.freeze({ 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSE_HEADERS });
  const headers = any ? () => everyone : (origin: string | undefined) => (origin === undefined ? undefined : allowed.get(origin)) ?? refused;
  /** By an answer's frozen headers: the CORS headers they were last given with, and both together. */
  const made = new WeakMap<object, { cors: object; both: Readonly<Record<string, string>> }>();
  return {
    any,
    listed: origins.filter((origin) => origin !== '*'),
    headers,
    answerHeaders(answer, origin) {
      const cors = headers(origin);
      // A GET's headers are its own (they hold its ETag): joined for this answer alone.
      if (!Object.isFrozen(answer)) return joined(answer, cors);
      const known = made.get(answer);
      if (known !== undefined && known.cors === cors) return known.both;
      const both = Object.freeze(joined(answer, cors));
      made.set(answer, { cors, both });
      return both;
    },
  };
}

/** `first`'s headers, then `then`'s, copied name by name: spreading a frozen object into a new one costs V8 far more. */
function joined(first: Readonly<Record<string, string>>, then: Readonly<Record<string, string>>): Record<string, string> {
  const both: Record<string, string> = {};
  for (const name in first) both[name] = first[name]!;
  for (const name in then) both[name] = then[name]!;
  return both;
}
