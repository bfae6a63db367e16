import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorState } from '../emulator/scenario/device.ts';
import { PROBLEM_CONTENT_TYPE, type Problem } from '../functions/core/problem.ts';
import type { InputProblem } from './support/call-function.ts';
import { call, callAlone, callApi, changeOver, type HttpAnswer } from './support/http-client.ts';
import { STATE_LIMITS } from '../emulator/state-limits.ts';
import { sshKey } from './support/ssh-keys.ts';
import { streamedBody } from './support/streamed-body.ts';
import { CLEAN_ENV, CLI, useChutebox, type Started } from './support/spawn.ts';
import { useStillScenario } from './support/still-scenario.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * The emulator's state over HTTP, as a controller's test suite uses it: the admin API
 * (`GET`/`PUT /_chutebox/state`, `POST /_chutebox/state/reset`) and `chutebox emulate --state FILE`,
 * on the default scenario without its living network (whose answers move with the clock).
 * emulator/emulator-state.test.ts checks the same in-process, every GET
 * endpoint with a clock that stands still; here the answers compared are those the clock does not
 * move (no uptime, no lease expiry).
 */

const STATE = '/_chutebox/state';
const RESET = '/_chutebox/state/reset';

const temp = useTempDir('chutebox-emulator-state-');
const start = useChutebox();
const stillDefault = useStillScenario('default');
const emulate = async (...args: string[]) =>
  start(['emulate', '--port', '0', '--change-delay', '0', ...(args.includes('--scenario') ? [] : ['--scenario', await stillDefault()]), ...args]);

/** The GETs whose answers the state decides (and the clock does not move), each with its status. */
const ENDPOINTS = [
  '/chutes',
  '/chutes/hello-world',
  '/chutes/hotspot',
  '/chutes/newcomer',
  '/chutes/hotspot/config',
  '/chutes/hotspot/cache',
  '/chutes/newcomer/cache',
  '/chutes/hello-world/networks/wifi/stations',
  '/chutes/hello-world/networks/wifi/stations/24:0a:c4:11:8b:3e',
  '/chutes/hotspot/networks/guest/stations',
  '/chutes/hello-world/networks/wifi/ssid',
  '/chutes/hotspot/networks/guest/ssid',
  '/chutes/hotspot/networks/guest/hostapd_status',
  '/config/hostconfig',
  '/config/pdconf',
  '/config/sshKeys/paradrop',
  '/config/provision',
  '/changes',
];

/** What a user sees of the device's state. */
async function answers(server: Started, headers: Record<string, string> = {}): Promise<Record<string, Pick<HttpAnswer, 'status' | 'body'>>> {
  const seen: Record<string, Pick<HttpAnswer, 'status' | 'body'>> = {};
  for (const endpoint of ENDPOINTS) {
    const { status, body } = await callApi(server, 'GET', endpoint, undefined, undefined, headers);
    seen[endpoint] = { status, body };
  }
  return seen;
}

const EDITED_HOST_CONFIG = {
  firewall: { defaults: { input: 'DROP', output: 'ACCEPT', forward: 'REJECT' } },
  lan: { interfaces: ['eth1', 'eth2'], proto: 'static', ipaddr: '10.20.0.1', netmask: '255.255.255.0' },
  wan: { interface: 'eth0', proto: 'dhcp' },
  wifi: [{ id: 'pci-wifi-0', channel: 149, hwmode: '11a', htmode: 'VHT80' }],
  'wifi-interfaces': [{ device: 'pci-wifi-0', ssid: 'home', encryption: 'psk2', key: 'a-secret-passphrase', network: 'lan' }],
};

/** Installs a chute, sets an SSID, disconnects a station, edits the host configuration, adds an SSH key and provisions, as a client would. */
async function changeEverything(server: Started, ssid = 'lab'): Promise<void> {
  const install = { name: 'newcomer', image: 'chutebox/newcomer:1', version: '1', config: { net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'new' } } } };
  expect(await changeOver(server, 'POST', '/chutes/', install)).toMatchObject({ state: 'succeeded' });
  expect(await callApi(server, 'PUT', '/chutes/hotspot/networks/guest/ssid', { ssid })).toMatchObject({ status: 200 });
  expect(await callApi(server, 'DELETE', '/chutes/hello-world/networks/wifi/stations/24:0a:c4:11:8b:3e')).toMatchObject({ status: 200 });
  expect(await changeOver(server, 'PUT', '/config/hostconfig', EDITED_HOST_CONFIG)).toMatchObject({ state: 'succeeded' });
  expect(await callApi(server, 'POST', '/config/sshKeys/paradrop', { key: sshKey('ed25519') })).toMatchObject({ status: 200 });
  const provision = { routerId: 'r-lab', apitoken: 'tok-secret-4f1d9a7e', pdserver: 'https://paradrop.org', wampRouter: 'ws://paradrop.org:9086/ws' };
  expect(await callApi(server, 'POST', '/config/provision', provision)).toMatchObject({ status: 200 });
}

/** The state a server exports, checked to be a 200 JSON answer. */
async function exported(server: Started, headers: Record<string, string> = {}): Promise<EmulatorState> {
  const answer = await call(server.url, 'GET', STATE, { headers });
  expect(answer, answer.text).toMatchObject({ status: 200, type: 'application/json' });
  return answer.body as EmulatorState;
}

/** A PUT of a state (as JSON unless `document` says otherwise). */
function imported<T = unknown>(server: Started, state: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer<T>> {
  return call<T>(server.url, 'PUT', STATE, { json: state, headers });
}

describe('chutebox emulate: POST /_chutebox/state/reset', () => {
  it('after installing a chute, changing an SSID, disconnecting a station, editing the host configuration, adding an SSH key and provisioning, every GET answers as the scenario did', async () => {
    const server = await emulate('--no-auth');
    const loaded = await answers(server);
    await changeEverything(server);
    const changed = await answers(server);
    // Each change shows, so that the comparison after the reset has something to undo.
    for (const endpoint of [
      '/chutes',
      '/chutes/newcomer',
      '/chutes/hello-world/networks/wifi/stations',
      '/chutes/hello-world/networks/wifi/stations/24:0a:c4:11:8b:3e',
      '/chutes/hotspot/networks/guest/ssid',
      '/config/hostconfig',
      '/config/pdconf',
      '/config/sshKeys/paradrop',
      '/config/provision',
      '/changes',
    ]) {
      expect(changed[endpoint], endpoint).not.toEqual(loaded[endpoint]);
    }
    const reset = await call(server.url, 'POST', RESET);
    expect(reset.status, reset.text).toBe(204);
    expect(await answers(server)).toEqual(loaded);
  });
});

describe('chutebox emulate: GET and PUT /_chutebox/state', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate('--no-auth');
  });

  it('GET answers the state, PUT of it after more changes gives back its answers', async () => {
    await changeEverything(server, 'at the snapshot');
    const state = await exported(server);
    expect(state).toMatchObject({ version: 2, scenario: 'default', seed: 1, clock: { speed: 1 } });
    expect(JSON.stringify(state)).not.toContain('tok-secret-4f1d9a7e');
    const atSnapshot = await answers(server);
    await callApi(server, 'PUT', '/chutes/hotspot/networks/guest/ssid', { ssid: 'after the snapshot' });
    await changeOver(server, 'POST', '/chutes/hotspot/stop');
    await changeOver(server, 'DELETE', '/chutes/newcomer');
    expect(await answers(server)).not.toEqual(atSnapshot);
    const put = await imported(server, state);
    expect(put.status, put.text).toBe(204);
    expect(await answers(server)).toEqual(atSnapshot);
  });

  it('a state exported from one emulator and imported into a fresh one, with PUT or with --state FILE, answers the same', async () => {
    const source = await emulate('--no-auth');
    await changeEverything(source, 'exported');
    const state = await exported(source);
    const expected = await answers(source);

    const byPut = await emulate('--no-auth');
    expect((await imported(byPut, state)).status).toBe(204);
    expect(await answers(byPut)).toEqual(expected);

    const file = path.join(temp.path(), 'exported.json');
    await writeFile(file, JSON.stringify(state));
    const byFlag = await emulate('--no-auth', '--state', file);
    expect(byFlag.output()).toContain(`started from the state in ${file}`);
    expect(await answers(byFlag)).toEqual(expected);
  });

  it('a bad import is refused with a problem naming the field, and changes nothing', async () => {
    const before = await exported(server);
    const answered = await answers(server);
    const glAr150 = await emulate('--no-auth', '--scenario', 'gl-ar150');
    const refusals: [unknown, number, string[]][] = [
      [await exported(glAr150), 422, ['body.scenario']],
      [{ ...before, version: 1 }, 422, ['body.version']],
      [{ ...before, clock: { ...before.clock, speed: -1 } }, 422, ['body.clock.speed']],
      [{ ...before, networks: [{ chute: 'hotspot', network: 'guest', ssid: 'x'.repeat(33), disconnected: [] }] }, 422, ['body.networks[0].ssid']],
      [{ ...before, engine: { ...before.engine, containers: null } }, 422, ['body.engine.containers']],
    ];
    for (const [state, status, paths] of refusals) {
      const answer = await imported<InputProblem>(server, state);
      expect(answer, answer.text).toMatchObject({ status, type: PROBLEM_CONTENT_TYPE });
      expect(answer.body.errors.map((error: { path: string }) => error.path)).toEqual(paths);
    }
    expect(await call(server.url, 'PUT', STATE, { document: { type: 'application/json', text: '{"version": 1,' } })).toMatchObject({ status: 400 });
    expect(await call(server.url, 'PUT', STATE, { document: { type: 'text/plain', text: JSON.stringify(before) } })).toMatchObject({ status: 415 });
    expect(await call(server.url, 'DELETE', STATE)).toMatchObject({ status: 405, type: PROBLEM_CONTENT_TYPE });
    expect((await call(server.url, 'GET', RESET)).headers.get('allow')).toBe('POST');
    expect(await answers(server)).toEqual(answered);
    const after = await exported(server);
    expect({ ...after, clock: null }).toEqual({ ...before, clock: null });
  });
});

describe('chutebox emulate: PUT /_chutebox/state of a state the API would not take', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate('--no-auth');
    await changeEverything(server);
  });

  /** Sends each state, expects a problem of `status` naming `paths`, and then the state and the answers as before. */
  async function refusedAll(states: [string, number, string[]][]): Promise<void> {
    const before = await exported(server);
    const answered = await answers(server);
    for (const [text, status, paths] of states) {
      const answer = await callAlone<Problem>(server.url, 'PUT', STATE, { document: { type: 'application/json', text } });
      expect(answer, answer.text.slice(0, 300)).toMatchObject({ status, type: PROBLEM_CONTENT_TYPE });
      expect(answer.body.errors?.map((error: { path: string }) => error.path) ?? []).toEqual(paths);
    }
    expect((await callApi(server, 'GET', '/info/telemetry')).status).toBe(200);
    expect(await answers(server)).toEqual(answered);
    expect({ ...(await exported(server)), clock: null }).toEqual({ ...before, clock: null });
  }

  it(`refuses a state over ${STATE_LIMITS.bytes} bytes with 413, cut as it streams in, and goes on answering with its state as before`, async () => {
    const before = await exported(server);
    const oversized = JSON.stringify({ ...before, chutes: { ...before.chutes, padding: 'x'.repeat(STATE_LIMITS.bytes) } });
    await refusedAll([[oversized, 413, []]]);
    // A body without a length that never ends: answered once it passes the limit, not when it ends.
    const endless = streamedBody(' '.repeat(64 * 1024), Number.POSITIVE_INFINITY);
    const answer = await callAlone(server.url, 'PUT', STATE, { streamed: { type: 'application/json', body: endless.body } });
    expect(answer).toMatchObject({ status: 413, body: { status: 413, detail: `the request body is larger than ${STATE_LIMITS.bytes} bytes` } });
    expect(await exported(server)).toMatchObject({ chutes: before.chutes, changes: before.changes });
  });

  it('refuses a state over a limit of its lists or of its values with 422 naming the field, and changes nothing', async () => {
    const before = await exported(server);
    const record = before.changes.records[0]!;
    const records = Array.from({ length: STATE_LIMITS.changeRecords + 1 }, (_, i) => ({ ...record, id: i + 1 }));
    const chutes = Object.fromEntries(Array.from({ length: STATE_LIMITS.chutes + 1 }, (_, i) => [`chute-${i}`, before.chutes.hotspot]));
    const images = Array.from({ length: STATE_LIMITS.images + 1 }, (_, i) => `chutebox/image-${i}:1`);
    const withConfig = (extra: unknown) => ({ ...before.chutes, hotspot: { ...before.chutes.hotspot!, config: { ...before.chutes.hotspot!.config, extra } } });
    const keys = Object.fromEntries(Array.from({ length: STATE_LIMITS.keys + 1 }, (_, i) => [`k${i}`, 0]));
    await refusedAll([
      [JSON.stringify({ ...before, changes: { nextId: records.length + 1, records } }), 422, ['body.changes.records']],
      [JSON.stringify({ ...before, chutes }), 422, ['body.chutes']],
      [JSON.stringify({ ...before, engine: { ...before.engine, images } }), 422, ['body.engine.images']],
      [JSON.stringify({ ...before, chutes: withConfig(keys) }), 422, ['body.chutes.hotspot.config.extra']],
      [JSON.stringify({ ...before, chutes: withConfig(new Array(STATE_LIMITS.values).fill(0)) }), 422, ['body']],
    ]);
  });

  it('refuses a chute configuration nested 10,000 deep, a container whose Names is 5, and a key __proto__ or constructor with 422 naming the field, and changes nothing', async () => {
    const before = await exported(server);
    const text = JSON.stringify(before);
    const deep = `${'{"a":'.repeat(10_000)}{}${'}'.repeat(10_000)}`;
    const hotspot = JSON.stringify(before.chutes.hotspot);
    const container = before.engine.containers![0]!;
    await refusedAll([
      [text.replace('"config":{', `"config":{"deep":${deep},`), 422, ['body.chutes.hello-world.config']],
      [JSON.stringify({ ...before, engine: { ...before.engine, containers: [{ ...container, Names: 5 }] } }), 422, ['body.engine.containers[0].Names']],
      [text.replace('"chutes":{', `"chutes":{"__proto__":${hotspot},`), 422, ['body.chutes.__proto__']],
      [text.replace('"chutes":{', '"chutes":{"constructor":{},'), 422, ['body.chutes.constructor']],
      [text.replace('"config":{', '"config":{"__proto__":{"polluted":true},'), 422, ['body.chutes.hello-world.config.__proto__']],
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('chutebox emulate with authentication: the admin API', () => {
  let server: Started;

  beforeAll(async () => {
    server = await emulate();
  });

  it('answers 401 without credentials, and nothing changes', async () => {
    for (const [method, endpoint] of [
      ['GET', STATE],
      ['PUT', STATE],
      ['POST', RESET],
    ] as const) {
      const answer = await call(server.url, method, endpoint, method === 'PUT' ? { json: {} } : {});
      expect(answer, `${method} ${endpoint}`).toMatchObject({ status: 401, type: PROBLEM_CONTENT_TYPE });
      expect(answer.headers.get('www-authenticate')).toContain('Bearer');
    }
  });

  it('serves a client that logged in, as the rest of the API', async () => {
    const login = await call<{ token: string }>(server.url, 'POST', '/api/v1/auth/local', { json: { username: 'paradrop', password: '' } });
    expect(login.status).toBe(200);
    const headers = { authorization: `Bearer ${login.body.token}` };
    const loaded = await answers(server, headers);
    const state = await exported(server, headers);
    expect(await call(server.url, 'PUT', '/api/v1/chutes/hotspot/networks/guest/ssid', { json: { ssid: 'lab' }, headers })).toMatchObject({ status: 200 });
    expect(await call(server.url, 'POST', RESET, { headers })).toMatchObject({ status: 204 });
    expect(await answers(server, headers)).toEqual(loaded);
    expect(await imported(server, state, headers)).toMatchObject({ status: 204 });
  });
});

describe('chutebox emulate --state FILE', () => {
  it('refuses to start with a state that does not fit the scenario, naming the file and the field', async () => {
    const glAr150 = await emulate('--no-auth', '--scenario', 'gl-ar150');
    const file = path.join(temp.path(), 'gl-ar150.json');
    await writeFile(file, JSON.stringify(await exported(glAr150)));
    const result = spawnSync(process.execPath, [CLI, 'emulate', '--port', '0', '--state', file], { env: CLEAN_ENV, encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`--state ${file} does not fit scenario default:`);
    expect(result.stderr).toContain('scenario is "gl-ar150": a state of another scenario');
    expect(result.stdout).not.toContain('listening on');
  });

  it(`refuses to start with a file over ${STATE_LIMITS.bytes} bytes, with many values or nested 10,000 deep, naming the file and the field`, async () => {
    const server = await emulate('--no-auth');
    const text = JSON.stringify(await exported(server));
    const deep = `${'{"a":'.repeat(10_000)}{}${'}'.repeat(10_000)}`;
    for (const [name, content, message] of [
      ['large.json', text.replace('"config":{', `"config":{"padding":"${'x'.repeat(STATE_LIMITS.bytes)}",`), `is larger than ${STATE_LIMITS.bytes} bytes`],
      [
        'dense.json',
        text.replace('"config":{', `"config":{"padding":[${new Array(STATE_LIMITS.values).fill(0).join(',')}],`),
        `the state holds more than ${STATE_LIMITS.values} values`,
      ],
      ['deep.json', text.replace('"config":{', `"config":{"deep":${deep},`), 'chutes.hello-world.config nests mappings and lists more than 64 deep'],
    ]) {
      const file = path.join(temp.path(), name!);
      await writeFile(file, content!);
      const result = spawnSync(process.execPath, [CLI, 'emulate', '--port', '0', '--state', file], { env: CLEAN_ENV, encoding: 'utf8', timeout: 30_000 });
      expect(result.status, result.stderr).toBe(1);
      expect(result.stderr).toContain(`--state ${file}`);
      expect(result.stderr).toContain(message);
      expect(result.stdout).not.toContain('listening on');
    }
  });

  it('refuses to start with a file that is not JSON', async () => {
    const file = path.join(temp.path(), 'not.json');
    await writeFile(file, 'version: 1\n');
    const result = spawnSync(process.execPath, [CLI, 'emulate', '--port', '0', '--state', file], { env: CLEAN_ENV, encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`--state ${file} is not JSON`);
  });
});
