import * as z from 'zod/mini';

/*
 * The body of POST /api/v1/config/provision, which its handler validates at run time (`validate`):
 * kept apart from schemas.ts (which re-exports it), so that handler's bundle holds only this.
 */

/** A router id: what the controller calls the device, and the pdid. It becomes a URL path segment. */
export const ROUTER_ID = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,128}$/;

/** The longest API token taken. */
export const MAX_APITOKEN_LENGTH = 4096;

/** The longest controller or WAMP router URL taken. */
const MAX_URL_LENGTH = 2048;

const required = (what: string) => (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);

/**
 * Why a text is not a URL of one of `protocols` without user name, password, query or fragment (the
 * same rules for both URLs: a GET answers them, so they must not hold a secret), or null when it is one.
 *
 * @example
 * serviceUrlProblem('https://paradrop.org', ['http:', 'https:'])        // null
 * serviceUrlProblem('https://me:pw@paradrop.org', ['http:', 'https:'])  // 'must not contain a user name or password'
 */
export function serviceUrlProblem(text: string, protocols: readonly string[]): string | null {
  const wanted = protocols.map((p) => `${p}//`).join(' or ');
  if (text.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(text)) return 'must not contain spaces or control characters';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `must be a URL starting with ${wanted}`;
  }
  if (!protocols.includes(url.protocol)) return `must be a URL starting with ${wanted}`;
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (text.includes('?') || text.includes('#')) return 'must not contain a query (?) or a fragment (#)';
  return null;
}

function serviceUrl(protocols: readonly string[], example: string) {
  return z.string({ error: required(`a URL such as ${example}`) }).check(
    z.superRefine((text: string, context) => {
      const problem = serviceUrlProblem(text, protocols);
      if (problem !== null) context.issues.push({ code: 'custom', message: problem, input: text });
    }),
  );
}

/**
 * The body of POST /api/v1/config/provision, what ParaDrop clients (pdtools, the controller's
 * dashboard) send; JSON. Other fields are ignored (a misspelt field still fails: the one it stands
 * for is then missing).
 * - `routerId`: 1 to 128 letters, digits, `.`, `_` or `-`, not `.` or `..` (`ROUTER_ID`);
 * - `apitoken`: 1 to 4096 printable ASCII characters without spaces: it is sent as a bearer token
 *   in an HTTP header, which can hold nothing else unchanged;
 * - `pdserver`: the controller, an `http://` or `https://` URL (a path is allowed);
 * - `wampRouter`: ParaDrop's WAMP router, a `ws://` or `wss://` URL, e.g. `ws://paradrop.org:9086/ws`.
 * Neither URL may hold a user name, password, query or fragment (`serviceUrlProblem`).
 *
 * @example
 * { "routerId": "5c3f2e…", "apitoken": "eyJhbGciOi…", "pdserver": "https://paradrop.org", "wampRouter": "ws://paradrop.org:9086/ws" }
 */
export const ProvisionBodySchema = z.object(
  {
    routerId: z
      .string({ error: required('a router id') })
      .check(z.regex(ROUTER_ID, { error: 'must be 1 to 128 letters, digits, ".", "_" or "-" (and not "." or "..")' })),
    apitoken: z
      .string({ error: required('a string') })
      .check(
        z.minLength(1, { error: 'must not be empty' }),
        z.maxLength(MAX_APITOKEN_LENGTH, { error: `must be at most ${MAX_APITOKEN_LENGTH} characters` }),
        z.regex(/^[\x21-\x7e]*$/, { error: 'must be printable ASCII without spaces (it is sent as a bearer token)' }),
      ),
    pdserver: serviceUrl(['http:', 'https:'], 'https://paradrop.org'),
    wampRouter: serviceUrl(['ws:', 'wss:'], 'ws://paradrop.org:9086/ws'),
  },
  { error: 'must be a mapping, such as {"routerId": "…", "apitoken": "…", "pdserver": "https://…", "wampRouter": "ws://…"}' },
);
export type ProvisionBody = z.infer<typeof ProvisionBodySchema>;
