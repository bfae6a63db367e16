import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`), which playwright-core drives: it downloads no browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** The first bytes of every PNG file. */
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Whether a test file's Chromium part is skipped: when Chromium is missing, with the reason printed,
 * unless CHUTEBOX_REQUIRE_BROWSER is set (as in CI), which makes it a failure instead.
 *
 * @example
 * const browserSkip = skipWithoutChromium('test/docs-browser.test.ts');
 * describe.skipIf(browserSkip.skipped)(`… in headless Chromium${browserSkip.note}`, () => { … });
 */
export function skipWithoutChromium(file: string): { skipped: boolean; note: string } {
  const unavailable = existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing (apt-get install -y chromium)`;
  const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_BROWSER;
  if (skipped) console.warn(`${file}: headless Chromium skipped: ${unavailable}; set CHUTEBOX_REQUIRE_BROWSER=1 to make this a failure`);
  return { skipped, note: skipped ? ` (skipped: ${unavailable})` : '' };
}

/** Headless Chromium, as these machines run it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/**
 * A browser context that lets through only requests to 127.0.0.1 (and the page's own `data:` and
 * `blob:` URLs), aborts any other, and records every request, every refused one and every error the
 * page reports (a Content Security Policy violation included).
 */
export async function watchedContext(browser: Browser, options: Parameters<Browser['newContext']>[0] = {}) {
  const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const requests: string[] = [];
  const outside: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.hostname === '127.0.0.1') return route.continue();
    outside.push(url.href);
    return route.abort('blockedbyclient');
  });
  context.on('request', (request) => requests.push(request.url()));
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, requests, outside, errors };
}
