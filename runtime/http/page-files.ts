import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { Context } from 'hono';
import { HttpProblem, isHttpProblem } from '../../functions/core/problem.ts';

/*
 * What the pages the build writes into dist/ (the docs page, the portal) share: their files stored
 * gzipped and named by their content, and a login prompt for the page itself.
 */

/** The media types of a page's files, by extension. */
export const PAGE_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
};

/** Assets are named by their content (the build's `pageWriter`), so a browser may keep them for good. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/** A page is behind credentials and changes with a build: never shared, always revalidated. */
const PAGE_CACHE = 'private, no-cache';

/** A page the build wrote into dist/ and the runtime serves. */
export interface PageSite {
  /** The folder of its files (`index.html` and `assets/`), stored gzipped. */
  files: URL;
  /** The paths that answer the page itself. */
  paths: readonly string[];
  /** The path of an asset, the file's name below `files` in its first group: without `/` or `..`. */
  asset: RegExp;
  /** Its Content Security Policy. */
  csp: string;
  /** What it is and where, for a 404's detail: `the API reference is at /docs`. */
  where: string;
}

/**
 * The answer of `site` to `c`: the page, behind `authorize` (the API's own check), whose 401 asks
 * for Basic credentials, the one scheme a browser prompts for; or one of its assets, which need no
 * credentials (the same on every device, saying nothing of it) and are cached for a year.
 *
 * @throws HttpProblem 401 (with `WWW-Authenticate: Basic`), 403 or 429 from `authorize`; 404 for a
 *   path that is no file of the page, or a build without the page.
 */
export async function servePage(c: Context, authorize: (c: Context) => Promise<unknown>, site: PageSite): Promise<Response> {
  const { path } = c.req;
  if (site.paths.includes(path)) {
    await authorize(c).catch(askForBasic);
    const headers = { 'cache-control': PAGE_CACHE, 'content-security-policy': site.csp, 'referrer-policy': 'no-referrer' };
    return sendPageFile(c, site.files, 'index.html', headers, `this build has no page here (${site.where}): build chutebox with \`npm run build\``);
  }
  const asset = site.asset.exec(path);
  if (asset === null) throw new HttpProblem(404, `no resource at ${path}: ${site.where}`);
  return sendPageFile(c, site.files, asset[1]!, { 'cache-control': ASSET_CACHE }, `no resource at ${path}`);
}

/** A 401 of the API's check, with a challenge a browser answers with its login prompt (it prompts for no Bearer token). */
function askForBasic(error: unknown): never {
  if (isHttpProblem(error) && error.status === 401) {
    throw new HttpProblem(401, error.message, { headers: { ...error.headers, 'www-authenticate': 'Basic realm="chutebox", charset="UTF-8"' } });
  }
  throw error;
}

/**
 * The file `name` of the folder `files` (stored gzipped as `<name>.gz`), gzipped for a client that
 * takes gzip, else unpacked; `missing` is the detail of the 404 when the file is not there.
 *
 * @throws HttpProblem 404 when the file is not there.
 */
async function sendPageFile(c: Context, files: URL, name: string, headers: Record<string, string>, missing: string): Promise<Response> {
  let gzipped: Buffer;
  try {
    gzipped = await readFile(new URL(`${name}.gz`, files));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new HttpProblem(404, missing);
  }
  const gzip = takesGzip(c.req.header('accept-encoding'));
  return new Response(gzip ? gzipped : gunzipSync(gzipped), {
    headers: {
      'content-type': PAGE_TYPES[name.slice(name.lastIndexOf('.') + 1)]!,
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
