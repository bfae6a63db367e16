import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, PNG_SIGNATURE, skipWithoutChromium, watchedContext } from './support/browser.ts';
import { type Started, useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * GET /docs in a real browser: headless Chromium (`apt-get install -y chromium`, driven by
 * playwright-core) opens the page of `chutebox emulate`, Redoc draws the API from the inlined
 * document, and nothing is asked of any host but 127.0.0.1. Skipped with the reason printed when
 * Chromium is missing, unless CHUTEBOX_REQUIRE_BROWSER is set (as in CI): then it fails.
 */
const chromiumSkip = skipWithoutChromium('test/docs-browser.test.ts');

const STATIONS_PATH = '/api/v1/chutes/{chute}/networks/{network}/stations';
const STATIONS_SUMMARY = 'The stations connected to an access point';

describe.skipIf(chromiumSkip.skipped)(`the docs page in headless Chromium${chromiumSkip.note}`, () => {
  const temp = useTempDir('chutebox-docs-browser-');
  const start = useChutebox();
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('draws the API reference with the stations endpoint, asking nothing of any host but 127.0.0.1', async () => {
    const server: Started = await start(['emulate', '--no-auth', '--port', '0']);
    const { context, page, requests, outside, errors } = await watchedContext(browser);
    try {
      const answer = await page.goto(`${server.url}/docs`);
      expect(answer?.status()).toBe(200);
      // Redoc renders every operation in the middle panel: the stations endpoint's heading, then its path.
      const heading = page.locator('h2', { hasText: STATIONS_SUMMARY }).first();
      await heading.waitFor({ state: 'attached', timeout: 20_000 });
      await heading.evaluate((element) => element.scrollIntoView());
      await expect.poll(() => heading.isVisible()).toBe(true);
      await expect.poll(() => page.getByText(STATIONS_PATH, { exact: true }).first().isVisible()).toBe(true);
      expect(await page.title()).toBe('chutebox 0.1.0: API reference');

      const screenshot = path.join(temp.path(), 'docs-stations.png');
      await page.screenshot({ path: screenshot });
      const png = await readFile(screenshot);
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      // A drawn page, not a blank one: a blank 1280×900 PNG is a few kilobytes.
      expect(png.length).toBeGreaterThan(30_000);

      expect(outside).toEqual([]);
      const hosts = new Set(
        requests
          .map((url) => new URL(url))
          .filter((url) => url.protocol !== 'blob:' && url.protocol !== 'data:')
          .map((url) => url.host),
      );
      expect([...hosts]).toEqual([new URL(server.url).host]);
      // The page, Redoc and its start script; the document came with the page.
      expect(requests.filter((url) => url.startsWith(`${server.url}/docs/assets/`))).toHaveLength(2);
      expect(requests.some((url) => url.includes('/api/v1/'))).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('with auth on: the browser answers the Basic challenge with the account, and the page draws', async () => {
    const server: Started = await start(['emulate', '--port', '0']);
    // Playwright gives these credentials when Chromium asks for them, as a person would in the prompt.
    const { context, page, outside, errors } = await watchedContext(browser, { httpCredentials: { username: 'paradrop', password: '' } });
    try {
      const answer = await page.goto(`${server.url}/docs`);
      expect(answer?.status()).toBe(200);
      await page.locator('h2', { hasText: STATIONS_SUMMARY }).first().waitFor({ state: 'attached', timeout: 20_000 });
      expect(outside).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
    // Without credentials Chromium gets the 401 and shows no page.
    const anonymous = await browser.newContext();
    try {
      const refused = await (await anonymous.newPage()).goto(`${server.url}/docs`).catch((error: Error) => error);
      expect(refused instanceof Error ? refused.message : refused?.status()).toMatch(/401|ERR_INVALID_AUTH_CREDENTIALS/);
    } finally {
      await anonymous.close();
    }
  });
});
