import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nanoTime } from '../functions/core/logs.ts';
import type { ChuteLogEntry, LogEntry } from '../functions/core/device/index.ts';
import type { Problem } from '../functions/core/problem.ts';
import { installChute } from './support/chute-state.ts';
import { dockerUnavailableReason, startDockerd, type Dockerd } from './support/dockerd.ts';
import { call, changeOver, finalChange, streamLines } from './support/http-client.ts';
import { serveArgs, useChutebox, type Started } from './support/spawn.ts';
import { tarArchive } from './support/tar.ts';
import { useTempDir } from './support/temp-dir.ts';
import { openWebSocket, opened, refused, type WebSocketClient } from './support/websocket-client.ts';

/*
 * A chute's log over HTTP (`GET /api/v1/chutes/<chute>/logs`, newline-delimited JSON) and over
 * ParaDrop's websockets (`/ws/chute_logs/<chute>`, `/sockjs/logs/<chute>`), as pdtools reads them:
 * on `chutebox emulate`, a recorded log replayed on the emulator's clock; on `chutebox serve`, the
 * log of a busybox chute on a real Docker Engine this test starts (dockerd and busybox-static;
 * skipped without them, unless CHUTEBOX_REQUIRE_DOCKER is set, as in CI).
 */

const temp = useTempDir('chutebox-chute-logs-');

/** A line of the answer, read. */
const entryOf = (line: string) => JSON.parse(line) as ChuteLogEntry;

/**
 * What `pdtools node watch-chute-logs <chute>` prints for one message of the websocket it reads. pdtools
 * (ParadropLabs/Paradrop, tools/pdtools/pdtools/node.py, `watch_chute_logs`) opens
 * `ws://<target>/sockjs/logs/<chute>` with `Authorization: Bearer <token>` (authenticated_client.py,
 * `ws_request`), sends nothing, and for each message runs:
 *
 *     data = json.loads(message)
 *     time = arrow.get(data['timestamp']).to('local').datetime
 *     msg = data['message'].rstrip()
 *     service = data.get("service", chute)
 *     click.echo("[{}] {}: {}".format(service, time, msg))
 *
 * A `KeyError` (no `timestamp` or `message`) or a timestamp arrow cannot parse ends pdtools with a
 * traceback: here, a thrown error. `time` is written as Python writes an aware datetime, here in UTC:
 * `2025-11-21 04:56:43.5+00:00` is `2025-11-21 04:56:43.500000+00:00`, arrow keeping microseconds
 * (rounding the seventh digit half to even).
 */
function pdtoolsLine(message: string, chute: string): string {
  const data = JSON.parse(message) as Record<string, unknown>;
  if (typeof data.timestamp !== 'string' || typeof data.message !== 'string') throw new Error(`pdtools fails on ${message}`);
  const stamp = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(data.timestamp);
  if (stamp === null) throw new Error(`arrow cannot parse ${data.timestamp}`);
  const [, date, time, fraction = '', zone] = stamp;
  const digits = fraction.padEnd(7, '0');
  const seventh = Number(digits[6]);
  const rounding = seventh > 5 || (seventh === 5 && Number(digits[5]) % 2 === 1) ? 1 : 0;
  const micro = Number(digits.slice(0, 6)) + rounding;
  expect(zone, 'a time in UTC').toBe('Z');
  const service = 'service' in data ? data.service : chute;
  return `[${service}] ${date} ${time}${micro === 0 ? '' : `.${String(micro).padStart(6, '0')}`}+00:00: ${data.message.trimEnd()}`;
}

/** The next message of a websocket, or null once it closed. */
async function nextMessage(ws: WebSocketClient): Promise<string | null> {
  return Promise.race([ws.next(), ws.closed.then(() => null)]);
}

// A scenario whose recording was made at 2025-11-21T04:56:40Z (btime 1763700000 + uptime 1000 s):
// chute `lab` printed two lines before it and prints two more 5 s and 6.5 s after.
const RECORDED_AT = Date.parse('2025-11-21T04:56:40Z');
const RECORDED_LOG: LogEntry[] = [
  { time: '2025-11-21T04:55:40.123456789Z', stream: 'stdout', message: 'lab up' },
  { time: '2025-11-21T04:56:10.25Z', stream: 'stderr', message: 'disk at 91%' },
  { time: '2025-11-21T04:56:45.5Z', stream: 'stdout', message: 'tick 1' },
  { time: '2025-11-21T04:56:47Z', stream: 'stdout', message: 'tick 2' },
];
// Chute `duet`, recorded stopped with its two services' lines (one of each before the recording's time and
// one of `db` 3 s after it): the test deletes it and installs it again from its source.
const DUET_LOG = [
  { time: '2025-11-21T04:56:20.5Z', service: 'web', stream: 'stdout', message: 'web up' },
  { time: '2025-11-21T04:56:21.5Z', service: 'db', stream: 'stderr', message: 'db up' },
  { time: '2025-11-21T04:56:43Z', service: 'db', stream: 'stdout', message: 'db tick' },
];
const DUET_YAML = ['name: duet', 'version: 1', 'services:', '  web: { type: image, image: duet-web:1 }', '  db: { type: image, image: duet-db:1 }', ''].join(
  '\n',
);
const SCENARIO = {
  'device.yaml': 'uname: { sysname: Linux, release: 6.1.0, version: "#1 SMP", machine: x86_64 }\n',
  'proc/stat': 'cpu  100 0 50 1000 0 0 0 0 0 0\nbtime 1763700000\n',
  'proc/uptime': '1000.00 2000.00\n',
  'engine/containers.json': JSON.stringify([
    {
      Id: 'a1b2c3',
      Names: ['/chute-lab'],
      Image: 'lab:1',
      State: 'running',
      Status: 'Up 14 minutes',
      Created: 1763700160,
      Labels: { 'io.chutebox.chute': 'lab' },
    },
  ]),
  'chutes/lab/chute.yaml': 'name: lab\nversion: "1"\nstate: running\nimage: lab:1\nenvironment: {}\nallocation: {}\nresources: null\n',
  'chutes/lab/logs': RECORDED_LOG.map((entry) => `${JSON.stringify(entry)}\n`).join(''),
  'chutes/duet/chute.yaml': 'name: duet\nversion: "1"\nstate: stopped\nimage: duet-web:1\nenvironment: {}\nallocation: {}\nresources: null\n',
  'chutes/duet/logs': DUET_LOG.map((entry) => `${JSON.stringify(entry)}\n`).join(''),
};

describe("a chute's log on chutebox emulate", () => {
  const start = useChutebox();
  let server: Started;
  /** When the emulator's clock last started again (a reset), ms since the epoch. */
  let clockStarted: number;

  beforeAll(async () => {
    const dir = await temp.folder('scenario');
    for (const [file, text] of Object.entries(SCENARIO)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    server = await start(['emulate', '--scenario', dir, '--no-auth', '--port', '0', '--change-delay', '20']);
  });

  /** Starts the emulated device again from its scenario: its clock at the recording's time, `lab` running. */
  async function reset(): Promise<void> {
    expect((await call(server.url, 'POST', '/_chutebox/state/reset')).status).toBe(204);
    clockStarted = Date.now();
  }

  it('GET …/logs answers the lines printed so far as newline-delimited JSON, their times moved to the emulator clock', async () => {
    await reset();
    const log = await streamLines(server.url, '/api/v1/chutes/lab/logs');
    expect(log).toMatchObject({ status: 200, type: 'application/x-ndjson' });
    expect(log.headers.get('cache-control')).toBe('no-store');
    const lines = (await log.rest()).map(entryOf);
    expect(lines.map(({ stream, message }) => ({ stream, message }))).toEqual([
      { stream: 'stdout', message: 'lab up' },
      { stream: 'stderr', message: 'disk at 91%' },
    ]);
    // Moved by the whole seconds from the recording to the emulator's start, the fraction as recorded.
    const moved = Date.parse(lines[0]!.time) - Date.parse(RECORDED_LOG[0]!.time);
    expect(moved % 1000).toBe(0);
    expect(Math.abs(moved - (clockStarted - RECORDED_AT))).toBeLessThan(1500);
    expect(lines[0]!.time).toMatch(/\.123456789Z$/);
  });

  it('takes tail, since, until and timestamps', async () => {
    await reset();
    const lines = async (query: string) => (await (await streamLines(server.url, `/api/v1/chutes/lab/logs?${query}`)).rest()).map(entryOf);
    const all = await lines('');
    expect(await lines('tail=1')).toEqual(all.slice(1));
    expect(await lines(`since=${all[1]!.time}`)).toEqual(all.slice(1));
    expect(await lines(`until=${encodeURIComponent(all[1]!.time.replace('.25Z', '.249999999Z'))}`)).toEqual(all.slice(0, 1));
    expect(await lines('timestamps=false&tail=1')).toEqual([{ service: 'main', stream: 'stderr', message: 'disk at 91%' }]);
  });

  it('with follow=true, goes on with each line as its time comes, and ends when the chute stops', async () => {
    await reset();
    const log = await streamLines(server.url, '/api/v1/chutes/lab/logs?follow=true&tail=1');
    expect(entryOf((await log.next())!).message).toBe('disk at 91%');
    expect(entryOf((await log.next())!).message).toBe('tick 1');
    expect(Date.now() - clockStarted).toBeGreaterThanOrEqual(4000);
    expect(entryOf((await log.next())!).message).toBe('tick 2');
    expect(Date.now() - clockStarted).toBeGreaterThanOrEqual(5500);
    expect((await changeOver(server, 'POST', '/chutes/lab/stop')).state).toBe('succeeded');
    expect(await log.next()).toBeNull();
  });

  it('responds with 404 for an unknown chute, 400 naming a malformed parameter, 422 for until before since, 405 for another method', async () => {
    expect((await call<Problem>(server.url, 'GET', '/api/v1/chutes/nosuch/logs')).status).toBe(404);
    const malformed = await call<Problem>(server.url, 'GET', '/api/v1/chutes/lab/logs?tail=last&follow=yes');
    expect(malformed).toMatchObject({ status: 400, type: 'application/problem+json' });
    expect(malformed.body.errors?.map((error) => error.path).sort()).toEqual(['query.follow', 'query.tail']);
    expect((await call<Problem>(server.url, 'GET', '/api/v1/chutes/a%20b/logs')).body.errors).toEqual([expect.objectContaining({ path: 'params.chute' })]);
    const order = await call<Problem>(server.url, 'GET', '/api/v1/chutes/lab/logs?since=1m&until=1h');
    expect(order).toMatchObject({ status: 422, body: { errors: [{ path: 'query.until', message: 'must not be before since' }] } });
    const post = await call<Problem>(server.url, 'POST', '/api/v1/chutes/lab/logs');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('pdtools node watch-chute-logs prints the last lines, then each new one, until the chute stops', async () => {
    await reset();
    const ws = opened(await openWebSocket(`${server.url}/sockjs/logs/lab`));
    const printed = async () => pdtoolsLine((await nextMessage(ws))!, 'lab');
    expect(await printed()).toMatch(/^\[main\] 2\d{3}-\d\d-\d\d \d\d:\d\d:\d\d\.123457\+00:00: lab up$/);
    expect(await printed()).toMatch(/^\[main\] \S+ \d\d:\d\d:\d\d\.250000\+00:00: disk at 91%$/);
    expect(await printed()).toMatch(/^\[main\] \S+ \d\d:\d\d:\d\d\.500000\+00:00: tick 1$/);
    expect(await printed()).toMatch(/^\[main\] \S+ \d\d:\d\d:\d\d\+00:00: tick 2$/);
    expect((await changeOver(server, 'POST', '/chutes/lab/stop')).state).toBe('succeeded');
    expect(await ws.closed).toEqual({ code: 1000, reason: 'the log of chute lab ended: the chute does not run' });
  });

  it("answers the recorded lines of each service of a chute of two services it installed, labelled and interleaved by time, over HTTP and ParaDrop's websocket", async () => {
    await reset();
    expect((await changeOver(server, 'DELETE', '/chutes/duet')).state).toBe('succeeded');
    const sent = await fetch(`${server.url}/api/v1/chutes`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-tar' },
      body: tarArchive({ 'paradrop.yaml': DUET_YAML }),
    });
    const installed = await finalChange(server.url, ((await sent.json()) as { change_id: number }).change_id);
    expect(installed.state, JSON.stringify(installed.messages)).toBe('succeeded');
    const lines = (await (await streamLines(server.url, '/api/v1/chutes/duet/logs')).rest()).map(entryOf);
    expect(lines.map(({ service, stream, message }) => ({ service, stream, message }))).toEqual([
      { service: 'web', stream: 'stdout', message: 'web up' },
      { service: 'db', stream: 'stderr', message: 'db up' },
    ]);
    const ws = opened(await openWebSocket(`${server.url}/ws/chute_logs/duet`));
    const printed = async () => pdtoolsLine((await nextMessage(ws))!, 'duet');
    expect(await printed()).toMatch(/^\[web\] \S+ \d\d:\d\d:\d\d\.500000\+00:00: web up$/);
    expect(await printed()).toMatch(/^\[db\] \S+ \d\d:\d\d:\d\d\.500000\+00:00: db up$/);
    expect(await printed()).toMatch(/^\[db\] \S+ \d\d:\d\d:\d\d\+00:00: db tick$/);
    ws.close();
    await ws.closed;
  });

  it("answers ParaDrop's message on /ws/chute_logs/<chute> and below /sockjs/logs/<chute>, and 404 for an unknown chute", async () => {
    await reset();
    for (const path of ['/ws/chute_logs/lab', '/sockjs/logs/lab/websocket']) {
      const ws = opened(await openWebSocket(`${server.url}${path}`));
      expect(JSON.parse((await ws.next())!), path).toEqual({ service: 'main', timestamp: expect.stringMatching(/\.123456789Z$/), message: 'lab up' });
      ws.close();
      await ws.closed;
    }
    expect(refused(await openWebSocket(`${server.url}/sockjs/logs/nosuch`)).status).toBe(404);
  });
});

describe("a chute's log on chutebox emulate with authentication", () => {
  const start = useChutebox();
  let server: Started;
  let token: string;

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0']);
    const login = await call<{ token: string }>(server.url, 'POST', '/api/v1/auth/local', { json: { username: 'paradrop', password: '' } });
    token = login.body.token;
  });

  it('needs credentials, for the log and for its websockets, as every route', async () => {
    expect((await call(server.url, 'GET', '/api/v1/chutes/hotspot/logs')).status).toBe(401);
    expect(refused(await openWebSocket(`${server.url}/sockjs/logs/hotspot`)).status).toBe(401);
    const log = await streamLines(server.url, '/api/v1/chutes/hotspot/logs?tail=1', { authorization: `Bearer ${token}` });
    expect(log.status).toBe(200);
    expect(entryOf((await log.rest())[0]!).stream).toMatch(/^std(out|err)$/);
    const ws = opened(await openWebSocket(`${server.url}/sockjs/logs/hotspot`, { authorization: `Bearer ${token}` }));
    expect(pdtoolsLine((await ws.next())!, 'hotspot')).toMatch(/^\[main\] .*: portal 2\.1 starting with \/etc\/portal\.yaml$/);
    ws.close();
    await ws.closed;
  });
});

const unavailable = dockerUnavailableReason();
const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_DOCKER;
if (skipped) console.warn(`test/chute-logs.test.ts (serve) skipped: ${unavailable}; set CHUTEBOX_REQUIRE_DOCKER=1 to make this a failure`);

/**
 * What chute `printer` runs: a line on stdout and one on stderr, a line of 32768 + 5 characters
 * (over the engine's 16 KiB a message), then `tick <n>` every second until it is stopped.
 */
const PRINTER = [
  'trap "exit 0" TERM',
  'echo "printer up"',
  'echo "low on paper" >&2',
  's=x; i=0; while [ $i -lt 15 ]; do s=$s$s; i=$((i+1)); done; echo "long $s"',
  'n=0; while :; do n=$((n+1)); echo "tick $n"; sleep 1 & wait $!; done',
].join('; ');

/** A time as the engine writes it: RFC 3339 in UTC, to the nanosecond, trailing zeros left out. */
const ENGINE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/;

describe.skipIf(skipped)(`a chute's log on chutebox serve with a container engine${skipped ? ` (skipped: ${unavailable})` : ''}`, () => {
  let engine: Dockerd | undefined;
  let server: Started;

  afterAll(async () => {
    await engine?.stop();
  });
  // After the engine's clean-up above: the server stops first.
  const start = useChutebox();

  /** The log's lines now, read. */
  const logOf = async (query = '') => (await (await streamLines(server.url, `/api/v1/chutes/printer/logs${query}`)).rest()).map(entryOf);

  /** The unix connections open to the engine's socket (its accepted ones, which carry its path, in /proc/net/unix). */
  async function engineConnections(): Promise<number> {
    const table = await readFile('/proc/net/unix', 'utf8');
    return table.split('\n').filter((line) => line.trim().split(/\s+/)[7] === engine!.socket && line.trim().split(/\s+/)[5] === '03').length;
  }

  async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value).slice(0, 500)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    engine = await startDockerd();
    const image = await engine.importBusybox('chutebox-test', 'printer', { cmd: ['sh', '-c', PRINTER] });
    const stateDir = await temp.folder('state');
    await installChute(stateDir, 'printer', image, {});
    server = await start(serveArgs(stateDir, engine.socket, ['--container-network', 'none']));
    expect((await changeOver(server, 'POST', '/chutes/printer/start')).state).toBe('succeeded');
    await waitFor('the printer ticks twice', logOf, (lines) => lines.some((line) => line.message === 'tick 2'));
  });

  it('GET …/logs answers each line with the engine’s time and its stream, a line over 16 KiB as one line', async () => {
    const lines = await logOf();
    for (const line of lines) expect(line.time).toMatch(ENGINE_TIME);
    // Each stream in the order printed; the engine reads the two streams apart, so one may come before the other.
    const printed = (stream: string) => lines.filter((line) => line.stream === stream).map((line) => line.message);
    expect(printed('stderr')).toEqual(['low on paper']);
    expect(printed('stdout').slice(0, 4)).toEqual(['printer up', `long ${'x'.repeat(32768)}`, 'tick 1', 'tick 2']);
    expect(lines.map((line) => nanoTime(line.time))).toEqual(lines.map((line) => nanoTime(line.time)).sort());
  });

  it('takes tail, and since and until to the nanosecond, as the engine does', async () => {
    const lines = await logOf();
    const [first, second] = lines.filter((line) => /^tick [12]$/.test(line.message)).map((line) => line.time);
    const between = (from: string | null, to: string) =>
      lines.filter((line) => (from === null || nanoTime(line.time) >= nanoTime(from)) && nanoTime(line.time) <= nanoTime(to));
    expect(await logOf('?tail=1')).toHaveLength(1);
    expect(await logOf(`?since=${first}&until=${second}`)).toEqual(between(first!, second!));
    expect((await logOf(`?since=${first}&until=${second}`)).map((line) => line.message)).toContain('tick 2');
    const withoutTimes = await logOf(`?tail=all&timestamps=false&until=${first}`);
    expect(withoutTimes).toEqual(between(null, first!).map(({ service, stream, message }) => ({ service, stream, message })));
  });

  it('with follow=true, goes on with each new line; going away ends the engine’s answer at once', async () => {
    // Idle keep-alive connections to the engine (of serve, and of this test's client) close after 5 s: then only
    // serve's follow of the engine's events is left (runtime/events/sources/), one connection.
    const FOLLOWING_EVENTS = 1;
    await waitFor('no connection to the engine but its events', engineConnections, (open) => open === FOLLOWING_EVENTS);
    const log = await streamLines(server.url, '/api/v1/chutes/printer/logs?follow=true&tail=1');
    const last = Number(/^tick (\d+)$/.exec(entryOf((await log.next())!).message)![1]);
    expect(entryOf((await log.next())!).message).toBe(`tick ${last + 1}`);
    expect(await engineConnections()).toBe(FOLLOWING_EVENTS + 1);
    const closed = Date.now();
    log.close();
    await waitFor('the engine connection of the log to close', engineConnections, (open) => open === FOLLOWING_EVENTS);
    expect(Date.now() - closed).toBeLessThan(2000);
    expect(await logOf('?tail=1')).toHaveLength(1);
  });

  it('pdtools node watch-chute-logs prints the last lines, then each new one', async () => {
    const ws = opened(await openWebSocket(`${server.url}/sockjs/logs/printer`));
    const printed: string[] = [];
    while (printed.length < 6) printed.push(pdtoolsLine((await ws.next())!, 'printer'));
    for (const line of printed) expect(line).toMatch(/^\[main\] \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})?\+00:00: /);
    expect(printed.map((line) => line.replace(/^.*?\+00:00: /, ''))).toEqual(
      expect.arrayContaining(['printer up', 'low on paper', `long ${'x'.repeat(32768)}`, 'tick 1', 'tick 2', 'tick 3']),
    );
    ws.close();
    expect((await ws.closed).code).toBe(1005);
  });

  it("with follow=true, ends when the chute stops, and ParaDrop's websocket closes with 1000", async () => {
    const follow = await streamLines(server.url, '/api/v1/chutes/printer/logs?follow=true&tail=0');
    const ws = opened(await openWebSocket(`${server.url}/ws/chute_logs/printer`));
    expect((await changeOver(server, 'POST', '/chutes/printer/stop')).state).toBe('succeeded');
    // The ticks printed until then, and the end of the answer.
    expect((await follow.rest()).map(entryOf).every((line) => /^tick \d+$/.test(line.message))).toBe(true);
    expect(await ws.closed).toEqual({ code: 1000, reason: 'the log of chute printer ended: the chute does not run' });
  });

  it('responds with 503 when no engine is reachable', async () => {
    const stateDir = await temp.folder('no-engine');
    await installChute(stateDir, 'printer', 'chutebox-test:printer', {});
    const alone = await start(serveArgs(stateDir, path.join(stateDir, 'no.sock')));
    const answer = await call<Problem>(alone.url, 'GET', '/api/v1/chutes/printer/logs');
    expect(answer).toMatchObject({ status: 503, type: 'application/problem+json' });
  });
});
