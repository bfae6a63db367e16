import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { Context } from 'hono';
import { HttpProblem, isHttpProblem } from '../../functions/core/problem.ts';

/**
 * The files the build wrote for the page (runtime/http/docs-page/build.mjs): beside this module's
 * bundle, dist/docs.mjs, in dist/docs/.
 */
const FILES = new URL('./docs/', import.meta.url);

/** An asset's path: a name made of its content's hash, without `/` or `..`, and one of the types below. */
const ASSET_PATH = /^\/docs\/(assets\/[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(js|txt))$/;

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
};

/**
 * What the page may load: its own scripts, the styles Redoc writes into it, images inlined as data,
 * and the web worker Redoc's search makes from a blob. Nothing of another origin, whatever the
 * document's Markdown holds.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; worker-src blob:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Assets are named by their content (build.mjs), so a browser may keep them for good. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * `GET /docs` and `GET /docs/assets/<file>`: the API reference page, Redoc drawing the OpenAPI
 * document that the page carries inline (docs/decisions/0032-the-docs-page.md). Loaded on the first
 * request to `/docs` (its own bundle, dist/docs.mjs); every answer is read from dist/docs/ then.
 *
 * - The page is behind `authorize`, the API's own check: it holds the same document as
 *   `GET /api/v1/openapi.json`. Its 401 asks for Basic credentials only, the one scheme a browser
 *   prompts for.
 * - The assets (Redoc's bundle, the script that starts it, their licences) need no credentials:
 *   they are the same on every device and say nothing of it. They are cached for a year.
 *
 * @throws HttpProblem 401 (with `WWW-Authenticate: Basic`), 403 or 429 from `authorize`; 404 for a
 *   path that is no file of the page, or a build without the page.
 * @example
 * app.get('/docs/*', async (c) => (await import('./docs.ts')).docs(c, authorize));
 */
export async function docs(c: Context, authorize: (c: Context) => Promise<unknown>): Promise<Response> {
  const { path } = c.req;
  if (path === '/docs' || path === '/docs/') {
    await authorize(c).catch(askForBasic);
    return send(c, 'index.html', 'html', { 'cache-control': 'private, no-cache', 'content-security-policy': DOCS_CSP, 'referrer-policy': 'no-referrer' });
  }
  const asset = ASSET_PATH.exec(path);
  if (asset === null) throw new HttpProblem(404, `no resource at ${path}: the API reference is at /docs`);
  return send(c, asset[1]!, asset[2]!, { 'cache-control': ASSET_CACHE });
}

/** A 401 of the API's check, with a challenge a browser answers with its login prompt (it prompts for no Bearer token). */
function askForBasic(error: unknown): never {
  if (isHttpProblem(error) && error.status === 401) {
    throw new HttpProblem(401, error.message, { headers: { ...error.headers, 'www-authenticate': 'Basic realm="chutebox", charset="UTF-8"' } });
  }
  throw error;
}

/** A file of dist/docs/ (stored gzipped), gzipped for a client that takes gzip, else unpacked. */
async function send(c: Context, name: string, type: string, headers: Record<string, string>): Promise<Response> {
  let gzipped: Buffer;
  try {
    gzipped = await readFile(new URL(`${name}.gz`, FILES));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new HttpProblem(404, name === 'index.html' ? 'this build has no docs page: build chutebox with `npm run build`' : `no resource at ${c.req.path}`);
  }
  const gzip = takesGzip(c.req.header('accept-encoding'));
  return new Response(gzip ? gzipped : gunzipSync(gzipped), {
    headers: {
      'content-type': TYPES[type]!,
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
      ...headers,
    },
  });
}

/**
 * Whether an `Accept-Encoding` takes gzip: `gzip` or `*` listed without `q=0`.
 *
 * @example
 * takesGzip('gzip, deflate, br') // true
 * takesGzip('gzip;q=0, identity') // false
 */
export function takesGzip(acceptEncoding: string | undefined): boolean {
  const q = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [coding, ...params] = part.split(';').map((s) => s.trim());
    const weight = params.find((p) => p.startsWith('q='));
    q.set(coding!, weight === undefined ? 1 : Number(weight.slice(2)));
  }
  return (q.get('gzip') ?? q.get('*') ?? 0) > 0;
}
