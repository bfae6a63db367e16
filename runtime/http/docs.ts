import type { Context } from 'hono';
import { servePage } from './page-files.ts';

/**
 * The files the build wrote for the page (runtime/http/docs-page/build.mjs): beside this module's
 * bundle, dist/docs.mjs, in dist/docs/.
 */
const FILES = new URL('./docs/', import.meta.url);

/** An asset's path: a name made of its content's hash, without `/` or `..`, and one of the types below. */
const ASSET_PATH = /^\/docs\/(assets\/[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?:js|txt))$/;

/**
 * What the page may load: its own scripts, the styles Redoc writes into it, images inlined as data,
 * and the web worker Redoc's search makes from a blob. Nothing of another origin, whatever the
 * document's Markdown holds.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; worker-src blob:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

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
export function docs(c: Context, authorize: (c: Context) => Promise<unknown>): Promise<Response> {
  return servePage(c, authorize, { files: FILES, paths: ['/docs', '/docs/'], asset: ASSET_PATH, csp: DOCS_CSP, where: 'the API reference is at /docs' });
}
