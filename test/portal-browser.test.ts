import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChuteRecord } from '../functions/chutes/schemas.ts';
import { launchChromium, PNG_SIGNATURE, skipWithoutChromium, watchedContext } from './support/browser.ts';
import { basicAuth, call, getJson } from './support/http-client.ts';
import { type Started, useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * The portal (GET /) in a real browser: headless Chromium opens the page of `chutebox emulate` with
 * the account's Basic credentials, as a person answering the prompt would, and the page draws the
 * default scenario's chutes and stations from the API and follows its events. Skipped with the
 * reason printed when Chromium is missing, unless CHUTEBOX_REQUIRE_BROWSER is set (as in CI).
 */
const chromiumSkip = skipWithoutChromium('test/portal-browser.test.ts');

const ACCOUNT = { username: 'paradrop', password: '' };
const BASIC = basicAuth(ACCOUNT.username, ACCOUNT.password);
/** The phone of the default scenario's timeline (fixtures/scenarios/default/living.yaml): it joins hello-world's wifi 120 s in. */
const JOINING = { mac: '02:5a:11:00:00:01', chute: 'hello-world', network: 'wifi', atMs: 120_000 };
/** The default scenario's access points, whose stations the page lists. */
const ACCESS_POINTS = [
  { chute: 'hello-world', network: 'wifi' },
  { chute: 'hotspot', network: 'guest' },
];

interface Station {
  mac_addr: string;
  signal: string;
}

describe.skipIf(chromiumSkip.skipped)(`the portal in headless Chromium${chromiumSkip.note}`, () => {
  const temp = useTempDir('chutebox-portal-browser-');
  const start = useChutebox();
  let browser: Browser;
  let server: Started;

  beforeAll(async () => {
    browser = await launchChromium();
    server = await start(['emulate', '--port', '0']);
    // The living network stands still: the page and the test read the same stations.
    expect((await call(server.url, 'PATCH', '/_chutebox/clock', { json: { speed: 0 }, headers: BASIC })).status).toBe(200);
  });

  afterAll(async () => {
    await browser?.close();
  });

  /**
   * Opens the portal of `device` (its base URL: the emulator's by default) at `viewport` and waits
   * until every chute is drawn; `check` runs on the page, then its requests are checked.
   */
  async function onPortal(viewport: { width: number; height: number }, check: (page: Page) => Promise<void>, device: { url: string } = server) {
    const { context, page, requests, outside, errors } = await watchedContext(browser, { httpCredentials: ACCOUNT, viewport });
    try {
      const answer = await page.goto(`${device.url}/`);
      expect(answer?.status()).toBe(200);
      const chutes = await getJson<ChuteRecord[]>(device, '/chutes', BASIC);
      await expect.poll(() => page.locator('[data-chute]').count(), { timeout: 20_000 }).toBe(chutes.length);
      await check(page);
      expect(outside).toEqual([]);
      expect([...new Set(requests.map((url) => new URL(url).host))]).toEqual([new URL(device.url).host]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }

  it('shows the default scenario’s chutes with their states, and each access point’s stations with their signal as bars', async () => {
    await onPortal({ width: 1280, height: 900 }, async (page) => {
      const chutes = await getJson<ChuteRecord[]>(server, '/chutes', BASIC);
      expect(chutes.map((chute) => chute.name)).toEqual(['hello-world', 'hotspot']);
      for (const chute of chutes) {
        await expect.poll(() => page.locator(`[data-chute="${chute.name}"] [data-state]`).textContent()).toBe(chute.state);
      }
      for (const { chute, network } of ACCESS_POINTS) {
        const stations = await getJson<Station[]>(server, `/chutes/${chute}/networks/${network}/stations`, BASIC);
        expect(stations.length).toBeGreaterThan(0);
        const shown = page.locator(`[data-chute="${chute}"] [data-network="${network}"] [data-mac]`);
        expect(await shown.evaluateAll((items) => items.map((item) => item.getAttribute('data-mac')))).toEqual(stations.map((s) => s.mac_addr));
        // A picture of the signal, not a number: bars that grow with it, and no dBm on screen.
        const bars = await shown.evaluateAll((items) => items.map((item) => Number(item.querySelector('svg[role="img"]')?.getAttribute('data-bars'))));
        const bySignal = stations.map((s, i) => [Number.parseInt(s.signal, 10), bars[i]!] as const).sort(([a], [b]) => a - b);
        for (const [i, [, lit]] of bySignal.entries()) {
          expect(lit).toBeGreaterThanOrEqual(i === 0 ? 0 : bySignal[i - 1]![1]);
          expect(lit).toBeLessThanOrEqual(4);
        }
        // The weakest station of each access point (around −70 dBm) shows fewer bars than the strongest (around −45).
        expect(bySignal[0]![1]).toBeLessThan(bySignal.at(-1)![1]);
        for (const text of await shown.allTextContents()) expect(text).not.toMatch(/dBm|-\d{2}\b/);
      }
      // The monitor interface and the VLAN are listed, with no stations of their own.
      expect(
        await page.locator('[data-chute="hotspot"] [data-network]').evaluateAll((items) => items.map((item) => item.getAttribute('data-network'))),
      ).toEqual(['guest', 'staff', 'survey']);
      await expect.poll(() => page.locator('#device').textContent()).toContain('PC Engines apu2');

      const screenshot = path.join(temp.path(), 'portal.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      const png = await readFile(screenshot);
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      // A drawn page, not a blank one: a blank 1280×900 PNG is a few kilobytes.
      expect(png.length).toBeGreaterThan(30_000);
    });
  });

  it('fits a phone: at 375 px wide nothing scrolls sideways', async () => {
    await onPortal({ width: 375, height: 812 }, async (page) => {
      await expect.poll(() => page.locator('[data-mac]').count()).toBeGreaterThan(0);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      // Each section spans the screen, one under the other.
      const boxes = await page.locator('main > section').evaluateAll((sections) => sections.map((s) => s.getBoundingClientRect().toJSON()));
      for (const box of boxes) expect(box.right).toBeLessThanOrEqual(375);
      expect(boxes.map((box: { top: number }) => box.top)).toEqual([...boxes.map((box: { top: number }) => box.top)].sort((a, b) => a - b));
      await page.screenshot({ path: path.join(temp.path(), 'portal-phone.png'), fullPage: true });
    });
  });

  it('follows the daemon’s log, and a chute’s when it is chosen', async () => {
    await onPortal({ width: 1280, height: 900 }, async (page) => {
      const lines = page.locator('#log li');
      await expect.poll(() => lines.allTextContents()).toContainEqual(expect.stringContaining('info listening url='));
      const printed = (await call<{ message: string }[]>(server.url, 'GET', '/api/v1/chutes/hotspot/logs?tail=20', { headers: BASIC })).body;
      expect(printed.length).toBeGreaterThan(0);
      await page.locator('#log-source').selectOption('hotspot');
      // Newest first, as the chute printed them.
      await expect.poll(() => lines.allTextContents()).toEqual(printed.map((line) => expect.stringContaining(line.message)).reverse());
    });
  });

  it('shows a station as it joins: the event, then the station on its access point, as the emulated clock passes its arrival', async () => {
    await onPortal({ width: 1280, height: 900 }, async (page) => {
      const station = page.locator(`[data-chute="${JOINING.chute}"] [data-network="${JOINING.network}"] [data-mac="${JOINING.mac}"]`);
      expect(await station.count()).toBe(0);
      await expect.poll(() => page.locator('#live').getAttribute('class')).toContain('on');
      const { elapsedMs } = (await call<{ elapsedMs: number }>(server.url, 'GET', '/_chutebox/clock', { headers: BASIC })).body;
      expect(elapsedMs).toBeLessThan(JOINING.atMs);
      const advanced = await call(server.url, 'PATCH', '/_chutebox/clock', { json: { advanceMs: JOINING.atMs + 10_000 - elapsedMs }, headers: BASIC });
      expect(advanced.status).toBe(200);

      const event = page.locator('#events [data-kind="station.connected"]', { hasText: JOINING.mac });
      await expect.poll(() => event.count(), { timeout: 10_000 }).toBe(1);
      expect(await event.textContent()).toContain(`${JOINING.chute}/${JOINING.network}`);
      await expect.poll(() => station.count(), { timeout: 10_000 }).toBe(1);
      await page.screenshot({ path: path.join(temp.path(), 'portal-joined.png') });
    });
  });

  it('in a fleet, shows each device’s own stations at /devices/<id>/', async () => {
    const fleet = await start(['emulate', '--fleet', '2', '--no-auth', '--port', '0']);
    const device = { url: `${fleet.url}/devices/router-1` };
    expect((await call(device.url, 'PATCH', '/_chutebox/clock', { json: { speed: 0 } })).status).toBe(200);
    const { chute, network } = ACCESS_POINTS[1]!;
    const stations = async (of: { url: string }) => (await getJson<Station[]>(of, `/chutes/${chute}/networks/${network}/stations`)).map((s) => s.mac_addr);
    expect(await stations(device)).not.toEqual(await stations({ url: `${fleet.url}/devices/router-0` }));
    await onPortal(
      { width: 1280, height: 900 },
      async (page) => {
        const shown = page.locator(`[data-chute="${chute}"] [data-network="${network}"] [data-mac]`);
        const listed = await stations(device);
        expect(listed.length).toBeGreaterThan(0);
        expect(await shown.evaluateAll((items) => items.map((item) => item.getAttribute('data-mac')))).toEqual(listed);
      },
      device,
    );
  });
});
