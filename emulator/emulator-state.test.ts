import { describe, expect, it } from 'vitest';
import * as changesPost from '../functions/changes/changes.post.ts';
import * as chutesPost from '../functions/chutes/chutes.post.ts';
import * as ssidPut from '../functions/networks/ssid.put.ts';
import * as stationDelete from '../functions/networks/station.delete.ts';
import * as stopPost from '../functions/chutes/stop.post.ts';
import * as hostconfigPut from '../functions/config/hostconfig.put.ts';
import * as provisionPost from '../functions/config/provision.post.ts';
import * as sshKeysPost from '../functions/config/ssh-keys.post.ts';
import * as sinkVolumePut from '../functions/audio/sink-volume.put.ts';
import * as modulesPost from '../functions/audio/modules.post.ts';
import type { ChangeAccepted } from '../functions/chutes/schemas.ts';
import type { Device } from '../functions/core/device/index.ts';
import { HttpProblem } from '../functions/core/problem.ts';
import { callFunction, type Answer, type EndpointModule } from '../test/support/call-function.ts';
import { settledChange } from '../test/support/emulated-changes.ts';
import { sshKey } from '../test/support/ssh-keys.ts';
import { EMULATOR_STATE_VERSION, loadScenario, type EmulatorState, type Scenario, type ScenarioOptions } from './scenario/device.ts';
import { EDITED_HOST_CONFIG } from '../test/support/config-devices.ts';
import { endpointModules } from './endpoint-modules.ts';
import { STATE_LIMITS } from './state-limits.ts';

/*
 * The state of an emulated device, in-process (`Scenario.snapshot()`, `restore()`, `reset()`), on the
 * default scenario with a clock the tests set: every GET endpoint of functions/ is asked with every
 * chute, network, station, change and user the tests touch, and its answers compared whole.
 * test/emulator-state.test.ts does the same over HTTP, through the admin API and `--state FILE`.
 */

/** When the tests' emulators start, in ms: the clock stands still unless a test moves it. */
const START = 2_000_000_000_000;

/** The chutes and networks asked about: the scenario's, and the one the tests install. */
const NETWORKS: Record<string, string[]> = { 'hello-world': ['wifi'], hotspot: ['guest', 'staff', 'survey'], newcomer: ['wlan'] };
/** Stations asked about: one of each recorded network, the first of them disconnected by the tests. */
const MACS = ['24:0a:c4:11:8b:3e', 'c8:5e:a9:3d:71:0b'];
const PROVISION = { routerId: '5c3f2e91a7', apitoken: 'tok-4f1d9a7e-very-secret', pdserver: 'https://paradrop.org', wampRouter: 'ws://paradrop.org:9086/ws' };

/** Every GET endpoint module of functions/. */
const endpoints: Promise<EndpointModule[]> = endpointModules().then((modules) =>
  (modules as unknown as EndpointModule[]).filter((module) => module.route.method === 'GET'),
);

/** The path parameters a route is asked with: each chute, network, station, change id and user above. */
function paramsOf(routePath: string): Record<string, string>[] {
  const names = [...routePath.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  let sets: Record<string, string>[] = [{}];
  const each = (values: (set: Record<string, string>) => Record<string, string>[]) => (sets = sets.flatMap(values));
  if (names.includes('chute')) each(() => Object.keys(NETWORKS).map((chute) => ({ chute })));
  if (names.includes('network')) each((set) => NETWORKS[set.chute!]!.map((network) => ({ ...set, network })));
  if (names.includes('mac')) each((set) => MACS.map((mac) => ({ ...set, mac })));
  if (names.includes('id')) each((set) => ['1', '2', '3', '4', '5', '6'].map((id) => ({ ...set, id })));
  if (names.includes('user')) each((set) => [{ ...set, user: 'paradrop' }]);
  return sets;
}

/** What every GET answers, by route and parameters: what a user of the device sees of its state. */
async function answers(device: Device): Promise<Record<string, Answer>> {
  const seen: Record<string, Answer> = {};
  for (const endpoint of await endpoints) {
    for (const params of paramsOf(endpoint.route.path))
      seen[`GET ${endpoint.route.path} ${JSON.stringify(params)}`] = await callFunction(endpoint, device, params);
  }
  return seen;
}

/** The default scenario, its changes taking no time, its clock standing at START until a test moves it. */
async function emulator(options: ScenarioOptions = {}): Promise<Scenario> {
  return loadScenario('default', undefined, { changeDelayMs: 0, clock: { now: START, speed: 0 }, ...options });
}

/** Waits for the change a call queued, and checks it succeeded. */
async function changed(device: Device, answer: Answer<ChangeAccepted>): Promise<void> {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(await settledChange(device, answer.body.change_id)).toMatchObject({ state: 'succeeded' });
}

/** Installs a chute, stops another, sets an SSID, disconnects a station, edits the host configuration, adds an SSH key, provisions, sets a sink's volume and loads an audio module. */
async function changeEverything(device: Device): Promise<void> {
  const install = {
    name: 'newcomer',
    image: 'chutebox/newcomer:1',
    version: '1',
    config: { net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'new-lab' } } },
  };
  await changed(device, await callFunction(chutesPost, device, {}, install));
  await changed(device, await callFunction(stopPost, device, { chute: 'hello-world' }));
  expect((await callFunction(ssidPut, device, { chute: 'hotspot', network: 'guest' }, { ssid: 'lab' })).status).toBe(200);
  expect((await callFunction(stationDelete, device, { chute: 'hello-world', network: 'wifi', mac: MACS[0]! })).status).toBe(200);
  await changed(device, await callFunction(hostconfigPut, device, {}, EDITED_HOST_CONFIG));
  expect((await callFunction(sshKeysPost, device, { user: 'paradrop' }, { key: sshKey('ed25519') })).status).toBe(200);
  expect((await callFunction(provisionPost, device, {}, PROVISION)).status).toBe(200);
  expect((await callFunction(sinkVolumePut, device, { sink: 'null' }, [0.25, 0.5])).status).toBe(200);
  expect((await callFunction(modulesPost, device, {}, { name: 'module-null-sink' })).status).toBe(200);
}

describe('reset()', () => {
  it('after installing a chute, stopping one, changing an SSID, disconnecting a station, editing the host configuration, adding an SSH key and provisioning, every GET answers as the scenario did', async () => {
    const scenario = await emulator();
    const loaded = await answers(scenario.device);
    await changeEverything(scenario.device);
    const changedAnswers = await answers(scenario.device);
    // Each of those shows in the answers, so that the comparison below has something to undo.
    for (const key of [
      'GET /api/v1/chutes {}',
      'GET /api/v1/chutes/:chute {"chute":"hello-world"}',
      'GET /api/v1/chutes/:chute/networks/:network/ssid {"chute":"hotspot","network":"guest"}',
      'GET /api/v1/chutes/:chute/networks/:network/stations {"chute":"hello-world","network":"wifi"}',
      'GET /api/v1/config/hostconfig {}',
      'GET /api/v1/config/pdconf {}',
      'GET /api/v1/config/sshKeys/:user {"user":"paradrop"}',
      'GET /api/v1/config/provision {}',
      'GET /api/v1/changes {}',
      'GET /api/v1/audio/sinks {}',
      'GET /api/v1/audio/modules {}',
    ]) {
      expect(changedAnswers[key], key).toBeDefined();
      expect(changedAnswers[key], key).not.toEqual(loaded[key]);
    }
    await scenario.reset();
    expect(await answers(scenario.device)).toEqual(loaded);
  });

  it('is a restore of the snapshot taken when the scenario was loaded', async () => {
    const scenario = await emulator();
    const atLoad = await scenario.snapshot();
    await changeEverything(scenario.device);
    await scenario.reset();
    expect(await scenario.snapshot()).toEqual(atLoad);
    await changeEverything(scenario.device);
    await scenario.restore(atLoad);
    const restored = await answers(scenario.device);
    await scenario.reset();
    expect(await answers(scenario.device)).toEqual(restored);
  });

  it('starts the clock again: the uptime is the recorded one, and grows from there', async () => {
    const scenario = await emulator();
    const uptime = async () => Number((await scenario.device.readFile('/proc/uptime'))!.split(' ')[0]);
    const recorded = await uptime();
    await scenario.clock.set({ advanceMs: 60_000 });
    expect(await uptime()).toBeCloseTo(recorded + 60, 2);
    await scenario.reset();
    expect(await uptime()).toBeCloseTo(recorded, 2);
    await scenario.clock.set({ advanceMs: 5_000 });
    expect(await uptime()).toBeCloseTo(recorded + 5, 2);
  });

  it('puts the clock back as it started (its wall time, nothing elapsed, its speed) and the seed it started with', async () => {
    const scenario = await emulator({ seed: 7 });
    await scenario.clock.set({ now: START + 3_600_000, advanceMs: 90_000, speed: 4 });
    await scenario.restore({ ...(await scenario.snapshot()), seed: 12 });
    expect(scenario.seed()).toBe(12);
    await scenario.reset();
    expect(scenario.seed()).toBe(7);
    expect(scenario.clock.read()).toEqual({ now: START, elapsedMs: 0, speed: 0 });
    expect(await scenario.snapshot()).toMatchObject({ seed: 7, clock: { now: START, elapsedMs: 0, speed: 0 } });
  });

  it('stops the changes under way: none of them changes anything after the reset, and the change log is the scenario’s (empty)', async () => {
    const scenario = await loadScenario('default', undefined, { changeDelayMs: 30 });
    const { device } = scenario;
    expect((await callFunction(stopPost, device, { chute: 'hotspot' })).status).toBe(200);
    expect((await callFunction(hostconfigPut, device, {}, EDITED_HOST_CONFIG)).status).toBe(200);
    const loadedHostConfig = await scenario.snapshot().then((state) => state.hostConfig);
    await scenario.reset();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await device.chute('hotspot'))?.record.state).toBe('running');
    expect(await device.changes()).toEqual([]);
    expect((await scenario.snapshot()).hostConfig).toEqual(loadedHostConfig);
  });
});

describe('snapshot() and restore()', () => {
  it('snapshot, then change everything, then restore: every GET answers as at the snapshot', async () => {
    const scenario = await emulator();
    await callFunction(ssidPut, scenario.device, { chute: 'hello-world', network: 'wifi' }, { ssid: 'before the snapshot' });
    await changed(scenario.device, await callFunction(stopPost, scenario.device, { chute: 'hotspot' }));
    const saved = await scenario.snapshot();
    const atSnapshot = await answers(scenario.device);
    await changeEverything(scenario.device);
    await scenario.restore(saved);
    expect(await answers(scenario.device)).toEqual(atSnapshot);
    // New changes go on from the snapshot's ids.
    const reboot = await callFunction<ChangeAccepted>(changesPost, scenario.device, {}, { updateClass: 'ROUTER', updateType: 'reboot' });
    expect(reboot.body.change_id).toBe(saved.changes.nextId);
  });

  it('gives a plain JSON value, versioned and named after its scenario, that restores as it was', async () => {
    const scenario = await emulator();
    await changeEverything(scenario.device);
    const state = await scenario.snapshot();
    expect(state).toMatchObject({ version: 2, scenario: 'default', seed: 1, clock: { now: START, elapsedMs: 0, speed: 0 } });
    expect(Object.keys(state)).toEqual([
      'version',
      'scenario',
      'chutes',
      'engine',
      'changes',
      'networks',
      'hostConfig',
      'provisioning',
      'accounts',
      'audio',
      'seed',
      'clock',
    ]);
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    expect(state.audio?.['modules-short']).toMatch(/\tmodule-null-sink\t/);
    expect(state.networks).toEqual([
      { chute: 'hotspot', network: 'guest', ssid: 'lab', disconnected: [] },
      { chute: 'hello-world', network: 'wifi', ssid: null, disconnected: [MACS[0]] },
    ]);
    expect(Object.keys(state.chutes)).toEqual(['hello-world', 'hotspot', 'newcomer']);
    expect(state.accounts.authorizedKeys['/home/paradrop/.ssh/authorized_keys']).toContain(sshKey('ed25519'));
    const answered = await answers(scenario.device);
    const other = await emulator();
    await other.restore(JSON.parse(JSON.stringify(state)) as EmulatorState);
    expect(await answers(other.device)).toEqual(answered);
  });

  it('leaves the apitoken out; a restore in the same emulator gets it back, elsewhere it is [redacted]', async () => {
    const scenario = await emulator();
    await callFunction(provisionPost, scenario.device, {}, PROVISION);
    const state = await scenario.snapshot();
    expect(state.provisioning).toEqual({
      routerId: PROVISION.routerId,
      pdserver: PROVISION.pdserver,
      wampRouter: PROVISION.wampRouter,
      provisionedAt: new Date(START).toISOString(),
      deliveries: { lastSuccess: null, lastError: null, dropped: 0, delivered: 0, failed: 0, httpConnected: true },
    });
    expect(JSON.stringify(state)).not.toContain(PROVISION.apitoken);
    const status = async (target: Scenario) => (await target.device.provisioning.status()).routerId;
    await scenario.reset();
    expect(await status(scenario)).toBeNull();
    await scenario.restore(state);
    expect(await status(scenario)).toBe(PROVISION.routerId);
    const other = await emulator();
    await other.restore(state);
    expect(await other.device.provisioning.status()).toMatchObject({
      provisioned: true,
      routerId: PROVISION.routerId,
      provisionedAt: state.provisioning!.provisionedAt,
    });
    await Promise.all([scenario.reset(), other.reset()]);
  });

  it("carries telemetry's counts and whether the controller answered into another emulator, and a state without them starts them afresh", async () => {
    const scenario = await emulator();
    await callFunction(provisionPost, scenario.device, {}, PROVISION);
    expect([await scenario.sendTelemetryNow(), await scenario.sendTelemetryNow()]).toEqual([true, true]);
    const state = await scenario.snapshot();
    const other = await emulator();
    await other.restore(JSON.parse(JSON.stringify(state)) as EmulatorState);
    const carried = { lastSuccess: new Date(START).toISOString(), lastError: null, queued: 0, dropped: 0, delivered: 2, failed: 0 };
    expect(await other.device.provisioning.status()).toMatchObject({ httpConnected: true, telemetry: carried });
    expect(await other.sendTelemetryNow()).toBe(true);
    expect((await other.device.provisioning.status()).telemetry).toMatchObject({ delivered: 3 });
    const { deliveries: _, ...older } = state.provisioning!;
    await other.restore({ ...state, provisioning: older });
    expect(await other.device.provisioning.status()).toMatchObject({ httpConnected: false, telemetry: { delivered: 0, lastSuccess: null } });
    await Promise.all([scenario.reset(), other.reset()]);
  });

  it('gives back the clock of the snapshot, its uptime with it, and lets it grow from there', async () => {
    const scenario = await emulator();
    const uptime = async () => Number((await scenario.device.readFile('/proc/uptime'))!.split(' ')[0]);
    const recorded = await uptime();
    await scenario.clock.set({ advanceMs: 60_000 });
    const state = await scenario.snapshot();
    expect(state.clock).toEqual({ now: START + 60_000, elapsedMs: 60_000, speed: 0 });
    await scenario.clock.set({ advanceMs: 30_000, now: START + 86_400_000 });
    await scenario.restore(state);
    expect(scenario.clock.read()).toEqual(state.clock);
    expect(await uptime()).toBeCloseTo(recorded + 60, 2);
    await scenario.clock.set({ advanceMs: 1_000 });
    expect(await uptime()).toBeCloseTo(recorded + 61, 2);
  });

  it('gives back the seed of the snapshot', async () => {
    const scenario = await emulator({ seed: 42 });
    const state = await scenario.snapshot();
    expect(state.seed).toBe(42);
    const other = await emulator();
    expect(other.seed()).toBe(1);
    await other.restore(state);
    expect(other.seed()).toBe(42);
    expect((await other.snapshot()).seed).toBe(42);
  });

  it('takes a change under way as it is; restored, it reads failed, as after a restart', async () => {
    const scenario = await loadScenario('default', undefined, { changeDelayMs: 50 });
    const { change_id: id } = (await callFunction<ChangeAccepted>(stopPost, scenario.device, { chute: 'hotspot' })).body;
    const state = await scenario.snapshot();
    expect(state.changes.records).toEqual([expect.objectContaining({ id, state: 'queued' })]);
    await scenario.restore(state);
    const change = await scenario.device.change(id);
    expect(change).toMatchObject({ id, state: 'failed' });
    expect(change!.messages.at(-1)!.text).toBe("failed: the emulator's state was restored while the change was queued");
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await scenario.device.chute('hotspot'))?.record.state).toBe('running');
  });
});

describe('restore() of a state that does not fit', () => {
  /** The problem a restore throws, after which nothing has changed. */
  async function refused(scenario: Scenario, state: unknown): Promise<HttpProblem> {
    const before = await scenario.snapshot();
    const error = await scenario.restore(state as EmulatorState).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HttpProblem);
    expect((error as HttpProblem).status).toBe(422);
    expect(await scenario.snapshot()).toEqual(before);
    return error as HttpProblem;
  }

  const paths = (problem: HttpProblem) => problem.errors?.map((error) => error.path);

  it('refuses a state of another scenario, naming the scenario', async () => {
    const glAr150 = await loadScenario('gl-ar150', undefined, { changeDelayMs: 0 });
    const scenario = await emulator();
    await callFunction(ssidPut, scenario.device, { chute: 'hotspot', network: 'guest' }, { ssid: 'kept' });
    const problem = await refused(scenario, await glAr150.snapshot());
    expect(paths(problem)).toEqual(['scenario']);
    expect(problem.message).toContain('a state of another scenario; this emulator serves "default"');
  });

  it('refuses a state of another version, naming the version', async () => {
    const scenario = await emulator();
    const problem = await refused(scenario, { ...(await scenario.snapshot()), version: 1 });
    expect(paths(problem)).toEqual(['version']);
    expect(problem.message).toContain('is 1; this chutebox reads version 2 only');
  });

  it('refuses bad fields, naming each, and changes nothing', async () => {
    const scenario = await emulator();
    await changeEverything(scenario.device);
    const state = structuredClone(await scenario.snapshot());
    state.networks[0]!.ssid = '';
    (state.changes.records[0] as { state: string }).state = 'done';
    state.chutes['bad name'] = state.chutes.hotspot!;
    state.hostConfig.stored = 'firewall: nope\n';
    state.clock.elapsedMs = -1;
    state.clock.speed = -1;
    state.seed = 1.5;
    expect(paths(await refused(scenario, { ...state, extra: true }))).toEqual(
      expect.arrayContaining([
        'networks[0].ssid',
        'changes.records[0].state',
        'chutes.bad name',
        'hostConfig.stored',
        'clock.elapsedMs',
        'clock.speed',
        'seed',
        'extra',
      ]),
    );
  });

  it('refuses an SSID that PUT …/ssid refuses: a line break or an ESC in it', async () => {
    const scenario = await emulator();
    await changeEverything(scenario.device);
    const state = structuredClone(await scenario.snapshot());
    state.networks[0]!.ssid = 'a\nDISABLE';
    state.networks[1]!.ssid = 'a\u001bb';
    const problem = await refused(scenario, state);
    expect(problem.errors).toEqual([
      { path: 'networks[0].ssid', message: 'must not contain control characters' },
      { path: 'networks[1].ssid', message: 'must not contain control characters' },
    ]);
  });

  it('refuses a document nested deeper than a request body may be, a container field of the wrong type and a key that names a prototype, naming each', async () => {
    const scenario = await emulator();
    await changeEverything(scenario.device);
    const state = structuredClone(await scenario.snapshot());
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const json = (text: string) => JSON.parse(text) as Record<string, unknown>;
    const hotspot = state.chutes.hotspot!;
    const refusals: [unknown, string[]][] = [
      [{ ...state, chutes: { ...state.chutes, hotspot: { ...hotspot, config: { ...hotspot.config, deep } } } }, ['chutes.hotspot.config']],
      [{ ...state, chutes: { ...state.chutes, hotspot: { ...hotspot, cache: deep } } }, ['chutes.hotspot.cache']],
      [{ ...state, engine: { ...state.engine, containers: [{ ...state.engine.containers![0]!, Names: 5 }] } }, ['engine.containers[0].Names']],
      [{ ...state, chutes: { ...json('{"__proto__": {}}'), ...state.chutes } }, ['chutes.__proto__']],
      [{ ...state, chutes: { ...state.chutes, prototype: hotspot } }, ['chutes.prototype']],
      [{ ...state, accounts: { authorizedKeys: json('{"constructor": "ssh-ed25519 AAAA"}') } }, ['accounts.authorizedKeys.constructor']],
      [
        { ...state, chutes: { ...state.chutes, hotspot: { ...hotspot, record: { ...hotspot.record, nested: [json('{"__proto__": {"polluted": true}}')] } } } },
        ['chutes.hotspot.record.nested[0].__proto__'],
      ],
    ];
    for (const [value, expected] of refusals) expect(paths(await refused(scenario, value))).toEqual(expected);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses lists and mappings over the limits of a state, naming each', async () => {
    const scenario = await emulator();
    await changeEverything(scenario.device);
    const state = structuredClone(await scenario.snapshot());
    const many = <T>(limit: number, item: (i: number) => T) => Array.from({ length: limit + 1 }, (_, i) => item(i));
    const record = state.changes.records[0]!;
    const network = { chute: 'hotspot', network: 'guest', ssid: null, disconnected: [] };
    const hotspot = state.chutes.hotspot!;
    const refusals: [unknown, string[]][] = [
      [
        { ...state, changes: { nextId: STATE_LIMITS.changeRecords + 2, records: many(STATE_LIMITS.changeRecords, (i) => ({ ...record, id: i + 1 })) } },
        ['changes.records'],
      ],
      [{ ...state, chutes: Object.fromEntries(many(STATE_LIMITS.chutes, (i) => [`chute-${i}`, hotspot])) }, ['chutes']],
      [{ ...state, engine: { ...state.engine, images: many(STATE_LIMITS.images, (i) => `image-${i}:1`) } }, ['engine.images']],
      [{ ...state, engine: { ...state.engine, containers: many(STATE_LIMITS.containers, (i) => ({ Id: `c${i}` })) } }, ['engine.containers']],
      [{ ...state, networks: many(STATE_LIMITS.networks, (i) => ({ ...network, network: `n${i}` })) }, ['networks']],
      [{ ...state, networks: [{ ...network, disconnected: many(STATE_LIMITS.disconnected, () => '02:00:00:00:00:01') }] }, ['networks[0].disconnected']],
      [
        { ...state, chutes: { ...state.chutes, hotspot: { ...hotspot, cache: Object.fromEntries(many(STATE_LIMITS.keys, (i) => [`k${i}`, 0])) } } },
        ['chutes.hotspot.cache'],
      ],
    ];
    for (const [value, expected] of refusals) expect(paths(await refused(scenario, value))).toEqual(expected);
  });

  it('refuses what only the scenario can tell: an engine it lacks, a key file of no account, an id past nextId', async () => {
    const scenario = await emulator();
    await changeEverything(scenario.device);
    const state = structuredClone(await scenario.snapshot());
    state.engine.containers = null;
    state.accounts.authorizedKeys['/home/nobody/.ssh/authorized_keys'] = sshKey('ed25519');
    state.changes.nextId = 2;
    expect(paths(await refused(scenario, state))).toEqual([
      'engine.containers',
      'changes.records[1].id',
      'changes.records[2].id',
      'accounts.authorizedKeys./home/nobody/.ssh/authorized_keys',
    ]);
  });

  it('refuses what is no state at all', async () => {
    const scenario = await emulator();
    expect(paths(await refused(scenario, null))).toEqual(['']);
    expect(paths(await refused(scenario, [1]))).toEqual(['']);
    expect(paths(await refused(scenario, { version: EMULATOR_STATE_VERSION, scenario: 'default' }))).toEqual(
      expect.arrayContaining(['chutes', 'engine', 'changes', 'networks', 'hostConfig', 'provisioning', 'accounts', 'seed', 'clock']),
    );
  });
});
