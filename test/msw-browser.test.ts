import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { setupServer } from 'msw/node';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserHandlersOptions, ChuteboxHandlers } from '../emulator/msw-browser.ts';
import { launchChromium, PNG_SIGNATURE, skipWithoutChromium, watchedContext } from './support/browser.ts';
import { keyLine, offCurve, sshKey, wireFields, type KeyName } from './support/ssh-keys.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * chutebox's msw handlers in a browser: the browser build (dist/lib-msw.browser.mjs, what the
 * package's `browser` condition of `chutebox/msw` gives a bundler) on the compiled default scenario
 * (dist/scenarios/default.json). First in Node under setupServer, then in headless Chromium
 * (`apt-get install -y chromium`, driven by playwright-core): a page registers msw's service worker
 * with chutebox's handlers, fetches a network's station list from http://router.test and shows it;
 * another posts SSH keys there, which Chromium's Web Crypto checks.
 * The Chromium part is skipped with the reason printed when Chromium is missing, unless
 * CHUTEBOX_REQUIRE_BROWSER is set (as in CI): then it fails.
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = path.join(ROOT, 'dist');
const ROUTER = 'http://router.test';
const STATIONS = `${ROUTER}/api/v1/chutes/hotspot/networks/guest/stations`;

const chromiumSkip = skipWithoutChromium('test/msw-browser.test.ts');

/** The MAC addresses of the guest network's stations, as recorded in the default scenario. */
async function recordedStations(): Promise<string[]> {
  const dump = await readFile(path.join(ROOT, 'fixtures/scenarios/default/chutes/hotspot/networks/guest/iw-station-dump.txt'), 'utf8');
  return [...dump.matchAll(/^Station ([0-9a-f:]{17}) /gm)].map((match) => match[1]!);
}

describe('chutebox scenario compile DIR', () => {
  const temp = useTempDir('chutebox-scenario-compile-');

  it('writes a recorded scenario as the one document the build writes for a built-in one', async () => {
    const out = path.join(await temp.folder('out'), 'default.json');
    const run = spawnSync(
      process.execPath,
      [path.join(DIST, 'chutebox.mjs'), 'scenario', 'compile', path.join(ROOT, 'fixtures/scenarios/default'), '--out', out],
      {
        encoding: 'utf8',
      },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`into ${out}`);
    expect(await readFile(out, 'utf8')).toBe(await readFile(path.join(DIST, 'scenarios/default.json'), 'utf8'));
  });

  it('fails with a usage error without a folder, and names a folder that is no scenario', () => {
    const cli = (...args: string[]) => spawnSync(process.execPath, [path.join(DIST, 'chutebox.mjs'), 'scenario', ...args], { encoding: 'utf8' });
    expect(cli('compile')).toMatchObject({ status: 2, stderr: expect.stringContaining('compile needs the scenario folder') });
    expect(cli('compile', path.join(ROOT, 'fixtures'))).toMatchObject({ status: 1, stderr: expect.stringContaining('is not a scenario') });
  });
});

describe('the browser build of chutebox/msw', () => {
  it('is what the package gives a bundler for the browser: the ES module of every endpoint, msw its only import', async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, Record<string, unknown>> };
    expect(pkg.exports['./msw']!.browser).toEqual({ types: './dist/types/emulator/msw-browser.d.ts', default: './dist/lib-msw.browser.mjs' });
    const bundle = await readFile(path.join(DIST, 'lib-msw.browser.mjs'), 'utf8');
    const imports = new Set<string>();
    await esbuild.build({
      stdin: { contents: bundle, loader: 'js', resolveDir: DIST },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      logLevel: 'silent',
      plugins: [
        { name: 'imports', setup: (build) => build.onResolve({ filter: /.*/ }, (args) => (imports.add(args.path), { path: args.path, external: true })) },
      ],
    });
    expect([...imports]).toEqual(['msw']);
  });

  it('answers under setupServer from the compiled scenario, with 501 for what needs Node', async () => {
    const { chuteboxHandlers } = (await import(path.join(DIST, 'lib-msw.browser.mjs'))) as {
      chuteboxHandlers: (options: BrowserHandlersOptions) => ChuteboxHandlers;
    };
    const scenario = JSON.parse(await readFile(path.join(DIST, 'scenarios/default.json'), 'utf8')) as BrowserHandlersOptions['scenario'];
    const server = setupServer(...chuteboxHandlers({ baseUrl: ROUTER, scenario, changeDelayMs: 0 }));
    server.listen({ onUnhandledRequest: 'error' });
    try {
      const stations = (await (await fetch(STATIONS)).json()) as { mac_addr: string }[];
      expect(stations.map((station) => station.mac_addr).sort()).toEqual((await recordedStations()).sort());
      const ws = await fetch(`${ROUTER}/ws/changes/1/stream`);
      expect([ws.status, ws.headers.get('content-type')]).toEqual([501, 'application/problem+json']);
      const metrics = await fetch(`${ROUTER}/metrics`);
      expect([metrics.status, metrics.headers.get('content-type')]).toEqual([501, 'application/problem+json']);
      expect((await fetch(`${ROUTER}/api/v1/openapi.json`)).status).toBe(200);
    } finally {
      server.close();
    }
  });
});

describe.skipIf(chromiumSkip.skipped)(`chutebox/msw with setupWorker in headless Chromium${chromiumSkip.note}`, () => {
  const temp = useTempDir('chutebox-msw-browser-');
  let browser: Browser;
  let server: Server;
  let origin: string;

  /** The page's script: msw's browser build and chutebox's (the package's `browser` condition), bundled as a page's bundler would. */
  const PAGE_SCRIPT = `
import { setupWorker } from 'msw/browser';
import { chuteboxHandlers } from 'chutebox/msw';

const show = (text) => (document.querySelector('#status').textContent = text);
try {
  const scenario = await (await fetch('/scenarios/default.json')).json();
  const worker = setupWorker(...chuteboxHandlers({ baseUrl: ${JSON.stringify(ROUTER)}, scenario }));
  await worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, onUnhandledRequest: 'bypass', quiet: true });
  const answer = await fetch(${JSON.stringify(STATIONS)});
  const stations = await answer.json();
  document.querySelector('#stations').replaceChildren(...stations.map((station) => {
    const item = document.createElement('li');
    item.textContent = station.mac_addr;
    return item;
  }));
  show(answer.status + ' ' + answer.headers.get('content-type') + ', ' + stations.length + ' stations');
  document.body.dataset.state = 'done';
} catch (error) {
  show('failed: ' + error.message);
  document.body.dataset.state = 'failed';
}
`;
  const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>guest stations</title>
<style>body { font: 18px sans-serif; margin: 2em; } li { font-family: monospace; font-size: 22px; }</style></head>
<body><h1>Stations on hotspot/guest</h1><p id="status">loading…</p><ul id="stations"></ul>
<script type="module" src="/app.js"></script></body></html>`;

  beforeAll(async () => {
    const built = await esbuild.build({
      stdin: { contents: PAGE_SCRIPT, loader: 'js', resolveDir: ROOT, sourcefile: 'page.js' },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      logLevel: 'silent',
    });
    const files: Record<string, { type: string; body: Buffer | string }> = {
      '/': { type: 'text/html; charset=utf-8', body: PAGE },
      '/app.js': { type: 'text/javascript', body: Buffer.from(built.outputFiles[0]!.contents) },
      '/mockServiceWorker.js': { type: 'text/javascript', body: await readFile(path.join(ROOT, 'node_modules/msw/lib/mockServiceWorker.js')) },
      '/scenarios/default.json': { type: 'application/json', body: await readFile(path.join(DIST, 'scenarios/default.json')) },
    };
    server = createServer((request, response) => {
      const file = files[new URL(request.url ?? '/', 'http://127.0.0.1').pathname];
      response.writeHead(file === undefined ? 404 : 200, { 'content-type': file?.type ?? 'text/plain' }).end(file?.body ?? 'not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('registers the service worker, fetches the station list from router.test and shows it, asking nothing of any other host', async () => {
    // What reaches the network: only 127.0.0.1. router.test is answered by the service worker, never the network.
    const { context, page, requests, outside, errors } = await watchedContext(browser, { viewport: { width: 900, height: 600 } });
    try {
      expect((await page.goto(origin))?.status()).toBe(200);
      await page.waitForSelector('body[data-state]', { timeout: 20_000 });
      const expected = await recordedStations();
      expect(await page.locator('#status').textContent()).toBe(`200 application/json, ${expected.length} stations`);
      expect((await page.locator('#stations li').allTextContents()).sort()).toEqual([...expected].sort());
      const text = await page.locator('body').textContent();
      for (const mac of expected) expect(text).toContain(mac);

      const screenshot = path.join(temp.path(), 'msw-stations.png');
      await page.screenshot({ path: screenshot });
      const png = await readFile(screenshot);
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(png.length).toBeGreaterThan(5_000);

      expect(outside).toEqual([]);
      const hosts = new Set(requests.map((url) => new URL(url).host));
      expect([...hosts].sort()).toEqual([new URL(origin).host, 'router.test'].sort());
      expect(requests).toContain(STATIONS);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("checks a posted SSH key with the browser's Web Crypto: takes each key ssh-keygen makes, refuses a point off its curve and weak RSA keys naming body.key", async () => {
    const [, p256Name, p256Point] = wireFields(sshKey('ecdsa-256')) as [Buffer, Buffer, Buffer];
    const [, , rsaModulus] = wireFields(sshKey('rsa-2048')) as [Buffer, Buffer, Buffer];
    const accepted: KeyName[] = ['ed25519', 'rsa-2048', 'ecdsa-256', 'ecdsa-384', 'ecdsa-521', 'sk-ed25519', 'sk-ecdsa-256'];
    const refused: [string, string][] = [
      [keyLine('ecdsa-sha2-nistp256', ['ecdsa-sha2-nistp256', p256Name, offCurve(p256Point)]), 'the point is not on curve nistp256'],
      [sshKey('rsa-1024'), 'RSA keys need at least 2048 bits; this one has 1024'],
      // Chromium's library refuses an even exponent itself, before chutebox's policy sees it.
      [keyLine('ssh-rsa', ['ssh-rsa', Buffer.from([1, 0, 0]), rsaModulus]), 'the RSA key is not valid'],
    ];
    const { context, page, errors } = await watchedContext(browser);
    try {
      await page.goto(origin);
      await page.waitForSelector('body[data-state="done"]', { timeout: 20_000 });
      const keys = [...accepted.map((name) => sshKey(name)), ...refused.map(([key]) => key)];
      const answers = await page.evaluate(
        ({ url, keys }) =>
          Promise.all(
            keys.map(async (key) => {
              const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
              return { status: answer.status, body: await answer.json() };
            }),
          ),
        { url: `${ROUTER}/api/v1/config/sshKeys/paradrop`, keys },
      );
      expect(answers.slice(0, accepted.length).map((answer) => answer.status)).toEqual(accepted.map(() => 200));
      expect(answers.slice(accepted.length)).toEqual(
        refused.map(([, message]) => ({ status: 422, body: expect.objectContaining({ errors: [{ path: 'body.key', message }] }) })),
      );
      // Chromium logs each 4xx answer it fetched; nothing else may be logged.
      expect(errors.filter((error) => !error.includes('status of 422'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
