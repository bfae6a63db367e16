import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ChangeAccepted } from '../functions/chutes/schemas.ts';
import { PROBLEM_CONTENT_TYPE, type Problem } from '../functions/core/problem.ts';
import type { FaultRule, FaultRuleInput } from '../emulator/faults/rule.ts';
import { startEmulator, type RunningEmulator } from '../emulator/start.ts';
import { openEvents, type EventStreamClient } from './support/event-stream-client.ts';
import { call, finalChange, type HttpAnswer } from './support/http-client.ts';
import { CLEAN_ENV, CLI, useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { DIST_FUNCTIONS } from './support/test-bundles.ts';

/*
 * Fault rules over HTTP (docs/emulator.md#faults): the rule API `/_chutebox/faults`, and what a
 * client of an emulator started with `startEmulator` meets: statuses by a seeded probability, delays,
 * broken connections and bodies, and faults inside the events stream and the websockets.
 */

const FAULTS = '/_chutebox/faults';
const STATIONS = '/api/v1/chutes/hotspot/networks/guest/stations';

const routers: RunningEmulator[] = [];
afterAll(() => Promise.all(routers.map((router) => router.stop())));

/** An emulator of the default scenario in this process, without credentials, stopped after the file's tests. */
async function emulator(): Promise<RunningEmulator> {
  // Still: two reads of one endpoint answer the same, whatever time passes between them.
  const router = await startEmulator({ auth: false, changeDelayMs: 0, functionsDir: DIST_FUNCTIONS, still: true });
  routers.push(router);
  return router;
}

/** Adds a rule over the rule API and answers it as the emulator holds it. */
async function addRule(router: { url: string }, rule: FaultRuleInput): Promise<FaultRule> {
  const answer = await call<FaultRule>(router.url, 'POST', FAULTS, { json: rule });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

/** The statuses of `requests` GETs of `path`, sent one at a time. */
async function statuses(router: { url: string }, paths: readonly string[], headers: Record<string, string> = {}): Promise<number[]> {
  const seen: number[] = [];
  for (const path of paths) seen.push((await fetch(`${router.url}${path}`, { headers }).then((res) => res.arrayBuffer().then(() => res))).status);
  return seen;
}

/** The stations of the default scenario's networks, polled 400 times in turn. */
const POLLS = Array.from({ length: 400 }, (_, i) => `/api/v1/chutes/${['hotspot/networks/guest', 'hello-world/networks/wifi'][i % 2]}/stations`);
const HALF: FaultRuleInput = { match: { method: 'GET', path: '/api/v1/chutes/*/networks/*/stations' }, probability: 0.5, seed: 7, effect: { status: 503 } };

describe('a fault rule with a probability, over HTTP', () => {
  it('fails about half of 400 requests, the same ones on a rerun with the same seed, others with another seed', async () => {
    const [first, rerun, other] = await Promise.all([emulator(), emulator(), emulator()]);
    await addRule(first, HALF);
    await addRule(rerun, HALF);
    await addRule(other, { ...HALF, seed: 8 });
    const failed = await statuses(first, POLLS);
    const count = failed.filter((status) => status === 503).length;
    expect(count).toBeGreaterThanOrEqual(160);
    expect(count).toBeLessThanOrEqual(240);
    expect(failed.filter((status) => status !== 503).every((status) => status === 200)).toBe(true);
    expect(await statuses(rerun, POLLS)).toEqual(failed);
    expect(await statuses(other, POLLS)).not.toEqual(failed);
  });

  it('gives a request with a Chutebox-Fault-Key the same fate when a hundred run at once, among others', async () => {
    const [busy, quiet] = await Promise.all([emulator(), emulator()]);
    await addRule(busy, HALF);
    await addRule(quiet, HALF);
    const keys = Array.from({ length: 100 }, (_, i) => `poll-${i}`);
    const keyed = (router: { url: string }, key: string) => statuses(router, [STATIONS], { 'chutebox-fault-key': key }).then(([status]) => status);
    const [together] = await Promise.all([Promise.all(keys.map((key) => keyed(busy, key))), statuses(busy, POLLS.slice(0, 50))]);
    const alone: number[] = [];
    for (const key of [...keys].reverse()) alone.unshift((await keyed(quiet, key))!);
    expect(together).toEqual(alone);
    expect(new Set(alone)).toEqual(new Set([200, 503]));
  });
});

describe('latency', () => {
  const start = useChutebox();

  it('a lognormal rule’s measured median over 200 requests is within 10% of its setting', async () => {
    // A process of its own, so that the test's clients do not hold up the emulator's timers.
    const router = await start(['emulate', '--port', '0', '--no-auth']);
    await addRule(router, { match: { path: STATIONS }, effect: { latency: { distribution: 'lognormal', medianMs: 200, sigma: 0.3, maxMs: 2000 } } });
    /** How long a GET takes, to its last byte. */
    const timed = async (path: string, key: string) => {
      const started = performance.now();
      await (await fetch(`${router.url}${path}`, { headers: { 'chutebox-fault-key': key } })).arrayBuffer();
      return performance.now() - started;
    };
    const delayed: number[] = [];
    const plain: number[] = [];
    // Eight clients, each a delayed request and then one the rule does not match: what the rule adds is the difference of the medians.
    await Promise.all(
      [0, 1, 2, 3, 4, 5, 6, 7].map(async (client) => {
        for (let i = 0; i < 25; i++) {
          delayed.push(await timed(STATIONS, `${client}-${i}`));
          plain.push(await timed('/api/v1/chutes/hello-world/networks/wifi/stations', `${client}-${i}`));
        }
      }),
    );
    const median = (times: number[]) => times.sort((a, b) => a - b)[times.length >> 1]!;
    const added = median(delayed) - median(plain);
    expect(added).toBeGreaterThanOrEqual(180);
    expect(added).toBeLessThanOrEqual(220);
  });
});

describe('statuses, counts and windows', () => {
  let router: RunningEmulator;
  beforeAll(async () => {
    router = await emulator();
  });
  afterEach(() => router.reset());

  it('answers a status rule with the problem a device gives for it, named by its detail', async () => {
    await addRule(router, { match: { operation: 'networks-stations-get', network: 'guest' }, effect: { status: 503, detail: 'hostapd is restarting' } });
    const answer = await call<Problem>(router.url, 'GET', STATIONS);
    expect(answer).toMatchObject({
      status: 503,
      type: PROBLEM_CONTENT_TYPE,
      body: { type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'hostapd is restarting' },
    });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect((await call(router.url, 'GET', '/api/v1/chutes/hello-world/networks/wifi/stations')).status).toBe(200);
  });

  it('fires a rule with a count that many times, then answers as the device does', async () => {
    await addRule(router, { match: { path: STATIONS }, count: 3, effect: { status: 500 } });
    expect(await statuses(router, Array(5).fill(STATIONS))).toEqual([500, 500, 500, 200, 200]);
  });

  it('fires a rule within its window of emulated time only', async () => {
    await addRule(router, { match: { path: STATIONS }, window: { untilMs: 1 }, effect: { status: 500 } });
    await addRule(router, { match: { path: STATIONS }, window: { fromMs: 3_600_000 }, effect: { status: 502 } });
    expect(await statuses(router, [STATIONS])).toEqual([200]);
    await addRule(router, { match: { path: STATIONS }, window: { fromMs: 0, untilMs: 3_600_000 }, effect: { status: 504 } });
    expect(await statuses(router, [STATIONS])).toEqual([504]);
  });
});

describe('connection and body faults', () => {
  let router: RunningEmulator;
  beforeAll(async () => {
    router = await emulator();
  });
  afterEach(() => router.reset());

  /** What fetch fails with for the stations: the code of its cause. */
  const failure = () =>
    fetch(`${router.url}${STATIONS}`).then(
      (res) => res.text().then(() => `answered ${res.status}`),
      (error: TypeError) => (error.cause as { code?: string }).code,
    );

  it('a connection reset is a socket error for fetch: ECONNRESET', async () => {
    await addRule(router, { match: { path: STATIONS }, effect: { fault: 'connection-reset' } });
    expect(await failure()).toBe('ECONNRESET');
  });

  it('an empty response closes the connection before any byte', async () => {
    await addRule(router, { match: { path: STATIONS }, effect: { fault: 'empty-response' } });
    expect(await failure()).toBe('UND_ERR_SOCKET');
  });

  it('a truncated body sends half the body under the length of the whole, then closes', async () => {
    const whole = await call(router.url, 'GET', STATIONS);
    await addRule(router, { match: { path: STATIONS }, effect: { fault: 'truncated-body' } });
    const cut = await rawGet(`${router.url}${STATIONS}`);
    expect(cut.status).toBe(200);
    expect(cut.headers['content-length']).toBe(String(Buffer.byteLength(whole.text)));
    expect(cut.body).toBe(whole.text.slice(0, Buffer.byteLength(whole.text) >> 1));
    expect(cut.complete).toBe(false);
  });

  it('a slow body takes about its duration, and is the whole answer', async () => {
    const whole = await call(router.url, 'GET', STATIONS);
    await addRule(router, { match: { path: STATIONS }, effect: { fault: 'slow-body', durationMs: 600, chunks: 6 } });
    const started = performance.now();
    const slow = await call(router.url, 'GET', STATIONS);
    const took = performance.now() - started;
    expect(slow.text).toBe(whole.text);
    expect(took).toBeGreaterThanOrEqual(580);
    expect(took).toBeLessThan(1500);
  });

  it('leaves the admin routes alone, whatever the rules', async () => {
    await addRule(router, { effect: { status: 503 } });
    expect((await call(router.url, 'GET', '/api/v1/chutes')).status).toBe(503);
    expect((await call(router.url, 'GET', FAULTS)).status).toBe(200);
    expect((await call(router.url, 'GET', '/_chutebox/state')).status).toBe(200);
  });
});

/** A GET over node:http: the head, the body as far as it came, and whether it came whole. */
function rawGet(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, complete: res.complete }));
        res.on('error', () => undefined);
      })
      .on('error', reject);
  });
}

describe('stream faults', () => {
  let router: RunningEmulator;
  beforeAll(async () => {
    router = await emulator();
  });
  afterEach(() => router.reset());

  const STREAM_FAULTS = ['close', 'drop', 'stall-heartbeat'] as const;
  /** How long a stalled stream is watched for anything more. */
  const WATCH_MS = 400;

  /** A chute restart, which sends its steps as events and to its change stream; answers its id once final. */
  async function restart(): Promise<number> {
    const accepted = await call<ChangeAccepted>(router.url, 'POST', '/api/v1/chutes/hello-world/restart');
    expect(accepted.status, accepted.text).toBe(200);
    await finalChange(router.url, accepted.body.change_id);
    return accepted.body.change_id;
  }

  it.each(STREAM_FAULTS)('%s on the events stream after 2 events, for the stream it hits', async (fault) => {
    await addRule(router, { match: { path: '/api/v1/events' }, count: 1, effect: { stream: fault, afterMessages: 2 } });
    const faulted = rawStream(`${router.url}/api/v1/events`);
    await faulted.opened;
    const whole = streamOf(await openEvents(router.url));
    await restart();
    const all = await whole.atLeast(4);
    const ended = await Promise.race([faulted.ended, sleep(WATCH_MS).then(() => 'open' as const)]);
    // The stream ends with its connection: a drop resets it, so the answer is not whole.
    expect(ended).toBe({ close: 'whole', drop: 'broken', 'stall-heartbeat': 'open' }[fault]);
    expect([...faulted.text().matchAll(/^id: (\d+)$/gm)].map((match) => match[1])).toEqual(all.slice(0, 2).map((event) => event.id));
    faulted.close();
    whole.close();
  });

  it.each(STREAM_FAULTS)('%s on the hostapd control websocket after 2 replies', async (fault) => {
    await addRule(router, { match: { path: '/api/v1/chutes/*/networks/*/hostapd_control/ws' }, effect: { stream: fault, afterMessages: 2 } });
    const ws = await socket(`${router.url}/api/v1/chutes/hotspot/networks/guest/hostapd_control/ws`);
    expect(await ws.pinged()).toBe(true);
    for (const _ of [1, 2, 3]) ws.socket.send('PING');
    const closed = await Promise.race([ws.closed, sleep(WATCH_MS).then(() => null)]);
    expect(ws.messages).toEqual(['PONG\n', 'PONG\n']);
    if (fault === 'stall-heartbeat') {
      expect(closed).toBeNull();
      expect(await ws.pinged()).toBe(false);
      ws.socket.terminate();
    } else expect(closed).toEqual(fault === 'close' ? { code: 1001, reason: 'closed by fault rule rule-1' } : { code: 1006, reason: '' });
  });

  it.each(STREAM_FAULTS)('%s on the change stream after 2 of its messages', async (fault) => {
    const id = await restart();
    const whole = await socket(`${router.url}/ws/changes/${id}/stream`);
    expect(await whole.closed).toEqual({ code: 1000, reason: `change ${id} succeeded` });
    await addRule(router, { match: { path: '/ws/changes/*/stream' }, effect: { stream: fault, afterMessages: 2 } });
    const ws = await socket(`${router.url}/ws/changes/${id}/stream`);
    const closed = await Promise.race([ws.closed, sleep(WATCH_MS).then(() => null)]);
    expect(ws.messages).toEqual(whole.messages.slice(0, 2));
    expect(closed).toEqual({ close: { code: 1001, reason: 'closed by fault rule rule-1' }, drop: { code: 1006, reason: '' }, 'stall-heartbeat': null }[fault]);
    ws.socket.terminate();
  });
});

/** A streamed GET over node:http, which tells a reset connection from a closed one: its text so far, and how it ended. */
function rawStream(url: string): { opened: Promise<void>; text(): string; ended: Promise<'whole' | 'broken'>; close(): void } {
  let text = '';
  let request: http.ClientRequest | undefined;
  let opened!: () => void;
  const ended = new Promise<'whole' | 'broken'>((resolve) => {
    request = http.get(url, { agent: false }, (res) => {
      opened();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', () => undefined);
      res.on('close', () => resolve(res.complete ? 'whole' : 'broken'));
    });
    request.on('error', () => resolve('broken'));
  });
  return { opened: new Promise<void>((resolve) => (opened = resolve)), text: () => text, ended, close: () => request?.destroy() };
}

/** The events of an answer that must be an open stream. */
function streamOf(answer: EventStreamClient | { status: number; text: string }): EventStreamClient {
  if (!('events' in answer)) throw new Error(`the events stream was refused: ${answer.status} ${answer.text}`);
  return answer;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An open websocket: what it received, when it closed, and whether a ping gets its pong in time. */
async function socket(
  url: string,
): Promise<{ socket: WebSocket; messages: string[]; closed: Promise<{ code: number; reason: string }>; pinged(): Promise<boolean> }> {
  const ws = new WebSocket(url.replace(/^http/, 'ws'));
  const messages: string[] = [];
  ws.on('message', (data) => messages.push(data.toString()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.on('error', () => undefined);
  const pinged = () =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 300);
      ws.once('pong', () => {
        clearTimeout(timer);
        resolve(true);
      });
      ws.ping();
    });
  return { socket: ws, messages, closed, pinged };
}

describe('the rule API, /_chutebox/faults', () => {
  let router: RunningEmulator;
  beforeAll(async () => {
    router = await emulator();
  });
  afterEach(() => router.reset());

  const rules = async () => (await call<{ rules: FaultRule[] }>(router.url, 'GET', FAULTS)).body.rules;

  it('lists, adds, shows, patches and removes rules, as LocalStack’s chaos API does', async () => {
    expect(await call(router.url, 'GET', FAULTS)).toMatchObject({ status: 200, body: { rules: [] } });
    const added = await call<FaultRule>(router.url, 'POST', FAULTS, { json: { match: { path: STATIONS }, effect: { status: 503 } } });
    expect(added).toMatchObject({ status: 201, body: { id: 'rule-1', match: { path: STATIONS }, effect: { status: 503 }, probability: 1, seed: 1 } });
    expect(added.headers.get('location')).toBe(`${FAULTS}/rule-1`);
    const listed = await call(router.url, 'PATCH', FAULTS, { json: [{ id: 'slow', effect: { latency: { distribution: 'fixed', ms: 5 } } }] });
    expect(listed).toMatchObject({ status: 200, body: { rules: [{ id: 'rule-1' }, { id: 'slow' }] } });
    expect(await call(router.url, 'GET', `${FAULTS}/slow`)).toMatchObject({ status: 200, body: { id: 'slow' } });
    expect(await call(router.url, 'PATCH', `${FAULTS}/rule-1`, { json: { probability: 0, effect: { status: 500 } } })).toMatchObject({
      status: 200,
      body: { id: 'rule-1', effect: { status: 500 }, probability: 0 },
    });
    expect((await call(router.url, 'DELETE', `${FAULTS}/slow`)).status).toBe(204);
    expect((await rules()).map((rule) => rule.id)).toEqual(['rule-1']);
    expect((await call(router.url, 'DELETE', FAULTS)).status).toBe(204);
    expect(await rules()).toEqual([]);
  });

  it('refuses bad input with a problem naming the field, and changes nothing', async () => {
    await addRule(router, { id: 'kept', effect: { status: 503 } });
    const before = await rules();
    const refused = async (method: string, path: string, options: Parameters<typeof call>[3]): Promise<HttpAnswer<Problem>> => {
      const answer = await call<Problem>(router.url, method, path, options);
      expect(answer.type, answer.text).toBe(PROBLEM_CONTENT_TYPE);
      return answer;
    };
    expect(await refused('POST', FAULTS, { json: { match: { chute: '-x' }, effect: { stream: 'hang' } } })).toMatchObject({
      status: 422,
      body: {
        errors: [
          { path: 'body.match.chute', message: 'must be a chute or network name' },
          { path: 'body.effect.stream', message: expect.stringContaining('"drop"') },
        ],
      },
    });
    expect(await refused('POST', FAULTS, { json: { device: 'meltdown' } })).toMatchObject({ status: 422, body: { errors: [{ path: 'body.device' }] } });
    expect(await refused('POST', FAULTS, { json: { id: 'kept', effect: { status: 500 } } })).toMatchObject({ status: 409 });
    expect(await refused('POST', FAULTS, { document: { type: 'application/json', text: '{"effect":' } })).toMatchObject({
      status: 400,
      body: { errors: [{ path: 'body' }] },
    });
    expect(await refused('POST', FAULTS, { document: { type: 'text/plain', text: 'effect' } })).toMatchObject({
      status: 415,
      body: { errors: [{ path: 'headers.content-type' }] },
    });
    expect(await refused('PATCH', FAULTS, { json: { effect: { status: 500 } } })).toMatchObject({ status: 422, body: { errors: [{ path: 'body' }] } });
    expect(await refused('PATCH', `${FAULTS}/kept`, { json: { id: 'other' } })).toMatchObject({ status: 422, body: { errors: [{ path: 'body.id' }] } });
    expect(await refused('PATCH', `${FAULTS}/kept`, { json: { count: 0 } })).toMatchObject({ status: 422, body: { errors: [{ path: 'body.count' }] } });
    expect(await refused('DELETE', `${FAULTS}/nobody`, {})).toMatchObject({
      status: 404,
      body: { detail: 'no fault rule nobody: GET /_chutebox/faults lists them' },
    });
    const put = await refused('PUT', FAULTS, { json: [] });
    expect(put).toMatchObject({ status: 405 });
    expect(put.headers.get('allow')).toBe('GET, POST, PATCH, DELETE');
    expect(await rules()).toEqual(before);
  });

  it('keeps the rules in the state: a snapshot holds them, a restore and a reset put them back', async () => {
    await addRule(router, { id: 'kept', count: 2, match: { path: STATIONS }, effect: { status: 503 } });
    expect(await statuses(router, [STATIONS])).toEqual([503]);
    const saved = await call<{ faults: unknown }>(router.url, 'GET', '/_chutebox/state');
    expect(saved.body.faults).toMatchObject({ rules: [{ id: 'kept' }], counters: { kept: { hits: 1 } } });
    expect((await call(router.url, 'POST', '/_chutebox/state/reset')).status).toBe(204);
    expect(await rules()).toEqual([]);
    const other = await emulator();
    expect((await call(other.url, 'PUT', '/_chutebox/state', { json: saved.body })).status).toBe(204);
    expect(await statuses(other, [STATIONS, STATIONS])).toEqual([503, 200]);
    const bad = { ...saved.body, faults: { rules: [{ id: 'x', effect: { status: 503 }, match: { operation: 'nothing-get' } }], nextId: 1, counters: {} } };
    expect(await call(other.url, 'PUT', '/_chutebox/state', { json: bad })).toMatchObject({
      status: 422,
      body: { errors: [{ path: 'body.faults.rules[0].match.operation' }] },
    });
    expect((await call<{ rules: FaultRule[] }>(other.url, 'GET', FAULTS)).body.rules).toMatchObject([{ id: 'kept' }]);
  });
});

describe('chutebox emulate --faults FILE', () => {
  const temp = useTempDir('chutebox-faults-');
  const start = useChutebox();
  const YAML = [
    'rules:',
    '  - id: busy-stations',
    '    match: { method: GET, path: /api/v1/chutes/*/networks/*/stations }',
    '    effect: { status: 503 }',
    '  - device: hostapd-down',
    '    chute: hello-world',
    '    network: wifi',
    '    window: { fromMs: 3600000 }',
    '',
  ].join('\n');
  const BASIC = `Basic ${Buffer.from('paradrop:').toString('base64')}`;

  it('starts with the rules of a YAML file, behind the API’s credentials, and a reset goes back to them', async () => {
    const file = path.join(await temp.folder('good'), 'faults.yaml');
    await writeFile(file, YAML);
    const server = await start(['emulate', '--port', '0', '--faults', file]);
    expect(server.output()).toContain(`started with 2 fault rules from ${file}`);
    const headers = { authorization: BASIC };
    expect((await call(server.url, 'GET', FAULTS)).status).toBe(401);
    expect((await call<{ rules: FaultRule[] }>(server.url, 'GET', FAULTS, { headers })).body.rules.map((rule) => rule.id)).toEqual(['busy-stations', 'rule-1']);
    expect((await call(server.url, 'GET', STATIONS, { headers })).status).toBe(503);
    expect((await call(server.url, 'DELETE', FAULTS, { headers })).status).toBe(204);
    expect((await call(server.url, 'GET', STATIONS, { headers })).status).toBe(200);
    expect((await call(server.url, 'POST', '/_chutebox/state/reset', { headers })).status).toBe(204);
    expect((await call(server.url, 'GET', STATIONS, { headers })).status).toBe(503);
  });

  it('refuses to start on a file whose rules do not check, naming the file and each field', async () => {
    const dir = await temp.folder('bad');
    const bad = path.join(dir, 'faults.json');
    await writeFile(
      bad,
      JSON.stringify({ rules: [{ effect: { status: 503 } }, { match: { method: 'get' }, effect: { latency: { distribution: 'fixed' } } }] }),
    );
    const run = (file: string) =>
      spawnSync(process.execPath, [CLI, 'emulate', '--port', '0', '--faults', file], { env: CLEAN_ENV, encoding: 'utf8', timeout: 20_000 });
    const refused = run(bad);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`--faults ${bad} holds rules that do not check:`);
    expect(refused.stderr).toContain('rules[1].match.method must be an HTTP method in capitals, such as GET');
    expect(refused.stderr).toContain('rules[1].effect.latency.ms Invalid input: expected number, received undefined');
    const notYaml = path.join(dir, 'faults.yaml');
    await writeFile(notYaml, 'rules: [ {');
    expect(run(notYaml)).toMatchObject({ status: 1, stderr: expect.stringContaining(`--faults ${notYaml} is not valid YAML`) });
    expect(run(path.join(dir, 'missing.yaml'))).toMatchObject({ status: 1, stderr: expect.stringContaining('cannot read it') });
  });
});
