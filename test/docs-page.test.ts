import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../functions/meta/schemas.ts';
import { DOCS_CSP } from '../runtime/http/docs.ts';
import { call } from './support/http-client.ts';
import { pageAnswersOnEmulator, pageAnswersOnServe } from './support/pages.ts';
import { type Started, useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/*
 * GET /docs over HTTP: the page (the OpenAPI document inlined, behind the API's auth) and its assets
 * (public, cached for good), on emulate and serve. test/docs-browser.test.ts opens it in Chromium.
 */

const ASSETS = fileURLToPath(new URL('../dist/docs/assets/', import.meta.url));
const YEAR = 'public, max-age=31536000, immutable';

/** The asset paths a page names (`src="/docs/assets/…"` and the licences in its comment). */
const assetPaths = (page: string) => [...new Set([...page.matchAll(/\/docs\/assets\/[\w.-]+/g)].map((m) => m[0]))].sort();

/** The OpenAPI document a page carries (`<script id="openapi" type="application/json">`). */
function inlinedDocument(page: string): unknown {
  const json = /<script id="openapi" type="application\/json">([^<]*)<\/script>/.exec(page)?.[1];
  expect(json).toBeDefined();
  return JSON.parse(json!);
}

const temp = useTempDir('chutebox-docs-page-');
const start = useChutebox();

describe('GET /docs on chutebox emulate --no-auth', () => {
  let server: Started;
  let page: string;

  beforeAll(async () => {
    server = await start(['emulate', '--no-auth', '--port', '0']);
  });

  it('answers the page as text/html, revalidated each time, with a policy that lets it load nothing from elsewhere', async () => {
    const answer = await call(server.url, 'GET', '/docs');
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('private, no-cache');
    expect(answer.headers.get('content-security-policy')).toBe(DOCS_CSP);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    page = answer.text;
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<title>chutebox 0.1.0: API reference</title>');
    // Nothing the page names is on another origin: every src and href is local (or data:).
    const references = [...page.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(references.length).toBeGreaterThanOrEqual(3);
    expect(references.filter((ref) => !ref.startsWith('/') && !ref.startsWith('data:'))).toEqual([]);
  });

  it('carries the same document as GET /api/v1/openapi.json, the stations endpoint included', async () => {
    const document = (await call<OpenApiDocument>(server.url, 'GET', '/api/v1/openapi.json')).body;
    expect(inlinedDocument(page)).toEqual(document);
    expect(Object.keys(document.paths)).toContain('/api/v1/chutes/{chute}/networks/{network}/stations');
  });

  it('answers /docs/ (a trailing slash) and HEAD as well', async () => {
    expect((await call(server.url, 'GET', '/docs/')).text).toBe(page);
    const head = await fetch(`${server.url}/docs`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await head.text()).toBe('');
  });

  it('answers each asset the page names with its type, cached for a year, gzipped or not as the client asks', async () => {
    const paths = assetPaths(page);
    // Redoc's bundle, the script that starts it, the licences: every file the build wrote, nothing else.
    expect(paths.map((p) => path.basename(p))).toEqual((await readdir(ASSETS)).map((file) => file.replace(/\.gz$/, '')).sort());
    expect(paths).toHaveLength(3);
    const types = { js: 'text/javascript; charset=utf-8', txt: 'text/plain; charset=utf-8' };
    for (const assetPath of paths) {
      const type = types[path.extname(assetPath).slice(1) as keyof typeof types];
      const gzipped = await call(server.url, 'GET', assetPath, { headers: { 'accept-encoding': 'gzip' } });
      expect([assetPath, gzipped.status, gzipped.type, gzipped.headers.get('content-encoding'), gzipped.headers.get('cache-control')]).toEqual([
        assetPath,
        200,
        type,
        'gzip',
        YEAR,
      ]);
      expect(gzipped.headers.get('vary')).toBe('accept-encoding');
      const plain = await call(server.url, 'GET', assetPath, { headers: { 'accept-encoding': 'identity' } });
      expect([plain.status, plain.headers.get('content-encoding'), plain.headers.get('cache-control')]).toEqual([200, null, YEAR]);
      expect(plain.text).toBe(gzipped.text);
    }
    const viewer = await call(server.url, 'GET', paths.find((p) => p.includes('/redoc.standalone.'))!);
    expect(viewer.text.length).toBeGreaterThan(500_000);
    // The one thing Redoc loads from elsewhere, its logo, was taken out by the build.
    expect(viewer.text).not.toContain('cdn.redoc.ly/redoc/logo-mini.svg');
    expect((await call(server.url, 'GET', paths.find((p) => p.endsWith('.txt'))!)).text).toContain('MIT');
  });

  it('answers 404 problems for any other path below /docs, and for a path that leaves dist/docs/', async () => {
    for (const endpoint of [
      '/docs/nothing',
      '/docs/assets/nothing.js',
      '/docs/assets/start.js.gz',
      '/docs/assets/..%2F..%2Fmanifest.json',
      '/docs/index.html',
    ]) {
      const answer = await call(server.url, 'GET', endpoint);
      expect([endpoint, answer.status, answer.type]).toEqual([endpoint, 404, 'application/problem+json']);
    }
  });
});

describe('GET /docs with auth on', () => {
  it('emulate: asks a browser for Basic credentials (not Bearer, which no browser prompts for); answers with the account or a token', async () => {
    const server = await start(['emulate', '--port', '0']);
    const { anonymous, wrong, account, token } = await pageAnswersOnEmulator(server.url, '/docs');
    expect(anonymous.status).toBe(401);
    expect(anonymous.type).toBe('application/problem+json');
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="chutebox", charset="UTF-8"');
    expect(anonymous.text).not.toContain('"openapi"');
    expect(wrong.status).toBe(401);
    expect([account.status, account.type]).toEqual([200, 'text/html; charset=utf-8']);
    expect(token.text).toBe(account.text);

    // The assets need no credentials: Redoc and a start script, the same on every device.
    for (const assetPath of assetPaths(account.text)) expect([assetPath, (await call(server.url, 'GET', assetPath)).status]).toEqual([assetPath, 200]);
  });

  it('serve: open to the device itself while no password is set, then behind the password', async () => {
    const { open, refused, page } = await pageAnswersOnServe(start, temp.path(), '/docs', 'docs-password');
    expect([open.status, open.type]).toEqual([200, 'text/html; charset=utf-8']);
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, 'Basic realm="chutebox", charset="UTF-8"']);
    expect(page.status).toBe(200);
    expect(inlinedDocument(page.text)).toEqual(inlinedDocument(open.text));
  });
});
