import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, changeOver, type HttpAnswer } from '../../test/support/http-client.ts';
import { addressOthers, deviceAnswers as answers, GUEST_SSID as SSID, NEWCOMER as INSTALL } from '../../test/support/fleet-answers.ts';
import { DIST_FUNCTIONS } from '../../test/support/test-bundles.ts';
import type { FleetState } from './fleet-state.ts';
import { startFleet, type RunningFleet, type StartFleetOptions } from './start-fleet.ts';

/*
 * A whole fleet's state: taken with `GET /_chutebox/state` (or `snapshot()`), put back with `PUT` (or
 * `restore()`), each written device answering as before, built or held, and the others as their seeds.
 */

const FLEET: StartFleetOptions = { size: 12, seed: 4, auth: false, functionsDir: DIST_FUNCTIONS, provision: false, still: true, changeDelayMs: 0 };
const START = Date.UTC(2026, 10, 1, 8);
/** What a device answers, in turn: its chutes, its SSID, a path a rule of the fleet fails, its clock and rules. */
const READS = ['/api/v1/chutes', '/api/v1/chutes/newcomer', SSID, '/api/v1/info/features', '/api/v1/info/features', '/_chutebox/clock', '/_chutebox/faults'];

/** Writes to two devices of `fleet` (a chute installed on router-1, an SSID on router-3), adds a rule of the fleet and moves its clock. */
async function writeTwo(fleet: RunningFleet): Promise<void> {
  await fleet.setClock({ now: START, elapsedMs: 0, speed: 0 });
  expect(await changeOver({ url: fleet.deviceUrl(1) }, 'POST', '/chutes', INSTALL)).toMatchObject({ state: 'succeeded' });
  expect((await call(fleet.deviceUrl(3), 'PUT', SSID, { json: { ssid: 'kept-in-the-state' } })).status).toBe(200);
  const rule = { match: { path: '/api/v1/info/features' }, count: 3, effect: { status: 503 }, devices: { ids: ['router-3'] } };
  expect((await call(fleet.url, 'POST', '/_chutebox/faults', { json: rule })).status).toBe(201);
  expect((await call(fleet.deviceUrl(3), 'GET', '/api/v1/info/features')).status).toBe(503);
  await fleet.setClock({ advanceMs: 90_000 });
}

/** What the fleet answers: router-1's and router-3's reads, router-5's SSID, the fleet's clock and rules. */
async function fleetAnswers(fleet: RunningFleet): Promise<string[]> {
  const fleetOwn = [];
  for (const path of ['/_chutebox/clock', '/_chutebox/faults']) fleetOwn.push((await call(fleet.url, 'GET', path)).text);
  return [...(await answers(fleet, 1, READS)), ...(await answers(fleet, 3, READS)), ...(await answers(fleet, 5, [SSID])), ...fleetOwn];
}

const getState = async (fleet: RunningFleet) => (await call<FleetState>(fleet.url, 'GET', '/_chutebox/state')) as HttpAnswer<FleetState>;

describe.each([
  ['every device kept built', undefined],
  ['two devices kept built, the others held', 2],
])("a fleet's state over HTTP, %s", (_, mostBuilt) => {
  let fleet: RunningFleet;
  beforeAll(async () => {
    fleet = await startFleet({ ...FLEET, ...(mostBuilt === undefined ? {} : { mostBuilt }) });
  });
  afterAll(() => fleet?.stop());

  it('answers as before after a reset and a PUT of the state taken, and a device not in it as its seed', async () => {
    const seedsSsid = await answers(fleet, 5, [SSID]);
    await writeTwo(fleet);
    if (mostBuilt !== undefined) await addressOthers(fleet, 6, 12);
    const built = fleet.built();
    const taken = await getState(fleet);
    expect(fleet.built()).toBe(built);
    expect(taken).toMatchObject({ status: 200, type: 'application/json' });
    expect(taken.body).toMatchObject({ version: 1, seed: 4, size: 12, scenarios: [{ scenario: 'default', share: 1 }], clock: { now: START + 90_000 } });
    expect(Object.keys(taken.body.devices)).toEqual(['router-1', 'router-3']);
    const before = await fleetAnswers(fleet);

    expect((await call(fleet.url, 'POST', '/_chutebox/state/reset')).status).toBe(204);
    expect((await call(fleet.deviceUrl(5), 'PUT', SSID, { json: { ssid: 'not-in-the-state' } })).status).toBe(200);
    const put = await call(fleet.url, 'PUT', '/_chutebox/state', { document: { type: 'application/json', text: taken.text } });
    expect(put.status, put.text).toBe(204);
    expect((await getState(fleet)).text).toBe(taken.text);
    if (mostBuilt !== undefined) expect(fleet.built()).toBeLessThanOrEqual(mostBuilt);
    expect(await fleetAnswers(fleet)).toEqual(before);
    expect(await answers(fleet, 5, [SSID])).toEqual(seedsSsid);
    expect(before[0]).toContain('"newcomer"');
    expect(before[READS.length + 2]).toContain('kept-in-the-state');
  });
});

describe("a fleet's state refused", () => {
  let fleet: RunningFleet;
  let taken: FleetState;
  beforeAll(async () => {
    fleet = await startFleet(FLEET);
    await writeTwo(fleet);
    taken = await fleet.snapshot();
    expect((await call(fleet.url, 'POST', '/_chutebox/state/reset')).status).toBe(204);
    await fleet.setClock({ now: START, elapsedMs: 0, speed: 0 });
  });
  afterAll(() => fleet?.stop());

  /** What a refused PUT could have changed: the devices written in the state, the fleet's clock and rules. */
  const unchanged = async () => [...(await answers(fleet, 1, READS)), ...(await answers(fleet, 3, [SSID])), ...(await fleetAnswers(fleet)).slice(-2)];
  const put = (state: unknown) => call(fleet.url, 'PUT', '/_chutebox/state', { json: state });
  const withDevice = (id: string, device: unknown) => ({ ...taken, devices: { ...taken.devices, [id]: device } });

  it.each([
    ['another seed', () => ({ ...taken, seed: 5 }), 'body.seed'],
    ['another size', () => ({ ...taken, size: 13 }), 'body.size'],
    ['other scenarios', () => ({ ...taken, scenarios: [{ scenario: 'gl-ar150', share: 1 }] }), 'body.scenarios'],
    ['another version', () => ({ ...taken, version: 2 }), 'body.version'],
    ['a device of another fleet', () => withDevice('router-12', taken.devices['router-3']), 'body.devices.router-12'],
    ['a bad clock', () => ({ ...taken, clock: { ...taken.clock, speed: -1 } }), 'body.clock.speed'],
    ['a bad rule of the fleet', () => ({ ...taken, faults: { ...taken.faults, rules: [{ effect: { status: 99 } }] } }), 'body.faults.rules[0]'],
    [
      'a bad target of a rule',
      () => ({ ...taken, faults: { ...taken.faults, rules: [{ ...taken.faults.rules[0], devices: { share: 2 } }] } }),
      'body.faults.rules[0].devices.share',
    ],
    [
      "a device's state that does not restore, after a good one",
      () =>
        withDevice('router-3', {
          ...taken.devices['router-3']!,
          document: { ...taken.devices['router-3']!.document, state: { networks: [{ chute: 'hotspot' }] } },
        }),
      'body.devices.router-3.document.state.networks[0]',
    ],
    [
      "a device's rules that do not check",
      () => withDevice('router-3', { ...taken.devices['router-3']!, faults: { rules: [{ effect: {} }], nextId: 1, counters: {} } }),
      'body.devices.router-3.faults',
    ],
    ['a key that reaches a prototype', () => JSON.parse(JSON.stringify(taken).replace('"router-1"', '"__proto__"')), 'body.devices.__proto__'],
  ])('refuses a state with %s with a 422 naming the field, and changes nothing', async (_, state, path) => {
    const before = await unchanged();
    const refused = await put(state());
    expect(refused, refused.text).toMatchObject({ status: 422, type: 'application/problem+json' });
    expect((refused.body as { errors: { path: string }[] }).errors.map((error) => error.path).join(' ')).toContain(path);
    expect(await unchanged()).toEqual(before);
    expect(before[0]).not.toContain('"newcomer"');
  });

  it('refuses a body that is not JSON with a 400, and answers 405 to another method', async () => {
    expect((await call(fleet.url, 'PUT', '/_chutebox/state', { document: { type: 'application/json', text: '{"version": 1,' } })).status).toBe(400);
    const other = await call(fleet.url, 'DELETE', '/_chutebox/state');
    expect(other.status).toBe(405);
  });
});

describe("startFleet's snapshot() and restore()", () => {
  it('put a fleet that kept one device built back as it was, from code', async () => {
    const fleet = await startFleet({ ...FLEET, mostBuilt: 1 });
    try {
      await writeTwo(fleet);
      const taken = await fleet.snapshot();
      const before = await fleetAnswers(fleet);
      await fleet.reset();
      await fleet.restore(taken);
      expect(await fleet.snapshot()).toEqual(taken);
      expect(await fleetAnswers(fleet)).toEqual(before);
      await expect(fleet.restore({ ...taken, seed: 5 })).rejects.toMatchObject({ status: 422 });
    } finally {
      await fleet.stop();
    }
  });
});
