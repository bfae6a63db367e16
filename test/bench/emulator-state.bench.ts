// npm run bench (vitest bench): how long the emulator's state takes to reset, restore and snapshot on
// the default scenario, in-process (`loadScenario`'s state API, what `POST /_chutebox/state/reset`
// calls). The goal is a reset under 50 ms, so that a controller's test suite can reset before every
// test (issue 13); test/bench/ratio-reporter.ts prints each median in ms. No test asserts a time.
import { bench, describe } from 'vitest';
import * as chutesGet from '../../functions/chutes/chutes.get.ts';
import * as stationsGet from '../../functions/networks/stations.get.ts';
import * as hostconfigGet from '../../functions/config/hostconfig.get.ts';
import * as pdconfGet from '../../functions/config/pdconf.get.ts';
import { runHandler, type Handler } from '../../functions/core/handler.ts';
import { loadScenario } from '../../emulator/scenario/device.ts';

const OPTIONS = { time: 500, warmupTime: 100 };

const scenario = await loadScenario('default', undefined, { changeDelayMs: 0 });
const { device } = scenario;

/** Answers one GET as the HTTP app does, and checks it answered. */
async function get(handle: Handler, params: Record<string, string> = {}): Promise<void> {
  const out = await runHandler(handle, { params, query: {}, headers: {}, body: undefined, text: '' }, device);
  if (out.status !== 200) throw new Error(`answered ${out.status}: ${out.body}`);
}

/** The first answers after a reset: what the reset leaves to be done on first use (pdconf is rendered and applied then). */
async function firstAnswers(): Promise<void> {
  await get(chutesGet.handle);
  await get(hostconfigGet.handle);
  await get(pdconfGet.handle);
  await get(stationsGet.handle, { chute: 'hotspot', network: 'guest' });
}

// A state with something in each part: an SSID, a disconnected station, a stopped chute, a key, pdconf rendered.
await device.network({ chute: 'hotspot', network: 'guest', hostInterface: null, hostapdControl: null, leaseFile: null }).hostapd(['SET', 'ssid', 'lab']);
await firstAnswers();
const { id } = await device.submitChange({ action: 'stop', chute: 'hello-world' });
while ((await device.change(id))?.state !== 'succeeded') await new Promise((resolve) => setTimeout(resolve, 1));
const exported = JSON.parse(JSON.stringify(await scenario.snapshot()));

describe('emulator state, default scenario, in-process (goal: reset() under 50 ms)', () => {
  bench('reset()', () => scenario.reset(), OPTIONS);
  bench(
    'reset(), then the first answers (chutes, hostconfig, pdconf, stations)',
    async () => {
      await scenario.reset();
      await firstAnswers();
    },
    OPTIONS,
  );
  bench('restore() of an exported state', () => scenario.restore(exported), OPTIONS);
  bench('snapshot()', async () => void (await scenario.snapshot()), OPTIONS);
});
