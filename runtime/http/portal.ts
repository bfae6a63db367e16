import type { Context } from 'hono';
import { servePage } from './page-files.ts';

/**
 * The files the build wrote for the portal (runtime/http/portal-page/build.mjs): beside this
 * module's bundle, dist/portal.mjs, in dist/portal/.
 */
const FILES = new URL('./portal/', import.meta.url);

/** An asset's path: `/portal/assets/<name>.<hash>.<ext>`, a name made of its content's hash, without `/` or `..`. */
const ASSET_PATH = /^\/portal\/(assets\/[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?:js|css))$/;

/**
 * What the portal may load: its own script and style sheet, and requests to its own origin (the
 * API, the events stream, the log). Nothing of another origin, no inline script or style.
 */
export const PORTAL_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * `GET /` and `GET /portal/assets/<file>`: the device's portal, as ParaDrop's daemon serves one at
 * `/` (docs/decisions/0063-the-portal.md): a page whose script reads the API, follows the events
 * stream and the daemon's log. Loaded on the first request (its own bundle, dist/portal.mjs); every
 * answer is read from dist/portal/ then.
 *
 * - The page is behind `authorize`, the API's own check, and its 401 asks for Basic credentials, the
 *   one scheme a browser prompts for; the browser then sends them with the script's requests.
 * - The assets (the script, the style sheet) need no credentials: they are the same on every device
 *   and say nothing of it. They are cached for a year.
 *
 * @throws HttpProblem 401 (with `WWW-Authenticate: Basic`), 403 or 429 from `authorize`; 404 for a
 *   path that is no file of the portal, or a build without it.
 * @example
 * app.get('/', async (c) => (await import('./portal.ts')).portal(c, authorize));
 */
export function portal(c: Context, authorize: (c: Context) => Promise<unknown>): Promise<Response> {
  return servePage(c, authorize, { files: FILES, paths: ['/'], asset: ASSET_PATH, csp: PORTAL_CSP, where: 'the portal is at /' });
}
