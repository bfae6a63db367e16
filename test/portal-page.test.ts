import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { PORTAL_CSP } from '../runtime/http/portal.ts';
import { call } from './support/http-client.ts';
import { pageAnswersOnEmulator, pageAnswersOnServe } from './support/pages.ts';
import { type Started, useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/*
 * GET / over HTTP: the portal (behind the API's auth, as ParaDrop's daemon serves its portal) and its
 * assets (public, cached for good), on emulate and serve. test/portal-browser.test.ts opens it in Chromium.
 */

const ASSETS = fileURLToPath(new URL('../dist/portal/assets/', import.meta.url));
const YEAR = 'public, max-age=31536000, immutable';
const CHALLENGE = 'Basic realm="chutebox", charset="UTF-8"';

/** The asset paths a page names, relative to it (`portal/assets/…`), as absolute paths. */
const assetPaths = (page: string) => [...new Set([...page.matchAll(/"(portal\/assets\/[\w.-]+)"/g)].map((m) => `/${m[1]}`))].sort();

const temp = useTempDir('chutebox-portal-page-');
const start = useChutebox();

describe('GET / on chutebox emulate --no-auth', () => {
  let server: Started;
  let page: string;

  beforeAll(async () => {
    server = await start(['emulate', '--no-auth', '--port', '0']);
  });

  it('answers the portal as text/html, revalidated each time, with a policy that lets it load and ask nothing of elsewhere', async () => {
    const answer = await call(server.url, 'GET', '/');
    expect([answer.status, answer.type]).toEqual([200, 'text/html; charset=utf-8']);
    expect(answer.headers.get('cache-control')).toBe('private, no-cache');
    expect(answer.headers.get('content-security-policy')).toBe(PORTAL_CSP);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    page = answer.text;
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<title>chutebox 0.1.0</title>');
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1" />');
    // Every src and href is relative to the page (or data:): nothing names another host, nor a path of its own.
    const references = [...page.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(references.length).toBeGreaterThanOrEqual(3);
    expect(references.filter((ref) => !/^(portal\/assets\/|api\/v1\/|data:)/.test(ref))).toEqual([]);
  });

  it('answers HEAD as well, and 405 with Allow: GET for another method', async () => {
    const head = await fetch(`${server.url}/`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'text/html; charset=utf-8', '']);
    const posted = await call(server.url, 'POST', '/', { json: {} });
    expect([posted.status, posted.type, posted.headers.get('allow')]).toEqual([405, 'application/problem+json', 'GET']);
  });

  it('answers its script and style sheet with their types, cached for a year, gzipped or not as the client asks', async () => {
    const paths = assetPaths(page);
    expect(paths.map((p) => path.basename(p))).toEqual((await readdir(ASSETS)).map((file) => file.replace(/\.gz$/, '')).sort());
    expect(paths.map((p) => path.extname(p)).sort()).toEqual(['.css', '.js']);
    const types = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
    for (const assetPath of paths) {
      const gzipped = await call(server.url, 'GET', assetPath, { headers: { 'accept-encoding': 'gzip' } });
      expect([assetPath, gzipped.status, gzipped.type, gzipped.headers.get('content-encoding'), gzipped.headers.get('cache-control')]).toEqual([
        assetPath,
        200,
        types[path.extname(assetPath) as keyof typeof types],
        'gzip',
        YEAR,
      ]);
      const plain = await call(server.url, 'GET', assetPath, { headers: { 'accept-encoding': 'identity' } });
      expect([plain.status, plain.headers.get('content-encoding'), plain.text]).toEqual([200, null, gzipped.text]);
    }
    // The script asks only relative URLs (the API, its events and its log): its one absolute URL names SVG's namespace.
    const script = (await call(server.url, 'GET', paths.find((p) => p.endsWith('.js'))!)).text;
    expect(script).toContain('api/v1/events');
    expect(script.match(/https?:\/\/[^"'`\s]*/g)).toEqual(['http://www.w3.org/2000/svg']);
  });

  it('answers 404 problems for any other path below /portal, and for a path that leaves dist/portal/', async () => {
    for (const endpoint of [
      '/portal',
      '/portal/',
      '/portal/assets/nothing.js',
      '/portal/assets/nothing.js.gz',
      '/portal/assets/..%2F..%2Fmanifest.json',
      '/portal/index.html',
    ]) {
      const answer = await call(server.url, 'GET', endpoint);
      expect([endpoint, answer.status, answer.type]).toEqual([endpoint, 404, 'application/problem+json']);
    }
  });
});

describe('GET / with auth on', () => {
  it('emulate: asks a browser for Basic credentials; answers with the account or a token; its assets need none', async () => {
    const server = await start(['emulate', '--port', '0']);
    const { anonymous, wrong, account, token } = await pageAnswersOnEmulator(server.url, '/');
    expect([anonymous.status, anonymous.type, anonymous.headers.get('www-authenticate')]).toEqual([401, 'application/problem+json', CHALLENGE]);
    expect(anonymous.text).not.toContain('<html');
    expect(wrong.status).toBe(401);
    expect([account.status, account.type]).toEqual([200, 'text/html; charset=utf-8']);
    expect([token.status, token.text]).toEqual([200, account.text]);
    for (const assetPath of assetPaths(account.text)) expect([assetPath, (await call(server.url, 'GET', assetPath)).status]).toEqual([assetPath, 200]);
  });

  it('serve: open to the device itself while no password is set, then behind the password', async () => {
    const { open, refused, page } = await pageAnswersOnServe(start, temp.path(), '/', 'portal-password');
    expect([open.status, open.type]).toEqual([200, 'text/html; charset=utf-8']);
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, CHALLENGE]);
    expect([page.status, page.text]).toEqual([200, open.text]);
  });
});
