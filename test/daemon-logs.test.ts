import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEntry } from '../functions/core/logs.ts';
import { call } from './support/http-client.ts';
import { waitUntil } from './support/netns.ts';
import { CLEAN_ENV, serveArgs, useChutebox, type Started } from './support/spawn.ts';
import { opened, openWebSocket, refused, type WebSocketClient } from './support/websocket-client.ts';

/*
 * The daemon's own log on `chutebox serve` and `chutebox emulate`: JSON lines on stdout, the recent
 * ones at GET /api/v1/logs and on ParaDrop's /ws/paradrop_logs.
 */

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'chutebox-daemon-logs-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

const start = useChutebox();
let serves = 0;
const COMMANDS = {
  serve: (extra: string[] = [], env: NodeJS.ProcessEnv = CLEAN_ENV) =>
    start(serveArgs(path.join(tmp, `state-${++serves}`), path.join(tmp, 'no-docker.sock'), extra), env),
  emulate: (extra: string[] = [], env: NodeJS.ProcessEnv = CLEAN_ENV) => start(['emulate', '--port', '0', '--no-auth', ...extra], env),
};

type Line = Record<string, unknown> & { time: string; level: string; msg: string };

/** The JSON lines the server printed on stdout so far, decoded (the listening banner aside). */
function jsonLines(server: Started): Line[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);
}

/** The request lines printed so far for `route`. */
const requestLines = (server: Started, route: string | null) => jsonLines(server).filter((line) => line.msg === 'request' && line.route === route);

/** Waits until the server printed a request line for `route` (lines go out at the end of a turn of its event loop). */
const printed = (server: Started, route: string | null, count = 1) =>
  waitUntil(
    `a request line for ${route}`,
    () => requestLines(server, route).length >= count,
    10_000,
    async () => server.output(),
  );

/** GET /api/v1/logs with `query`, decoded: one entry a line. */
async function logs(server: Started, query = ''): Promise<LogEntry[]> {
  const answer = await call<LogEntry[]>(server.url, 'GET', `/api/v1/logs${query}`);
  expect(answer.status).toBe(200);
  expect(answer.type).toBe('application/x-ndjson');
  return answer.body;
}

describe.each(Object.keys(COMMANDS) as (keyof typeof COMMANDS)[])('the daemon log of chutebox %s', (command) => {
  let server: Started;
  beforeAll(async () => {
    server = await COMMANDS[command](['--log-level', 'debug', '--log-buffer', '64']);
  });

  it('prints one JSON line a request on stdout at debug: the time, the method, the route as mounted, the status, the seconds and the user', async () => {
    await call(server.url, 'GET', '/api/v1/info/features');
    await call(server.url, 'GET', '/api/v1/chutes/no-such-chute');
    await call(server.url, 'DELETE', '/api/v1/info/features');
    await printed(server, null);
    await printed(server, '/api/v1/chutes/:chute');
    const [features] = requestLines(server, '/api/v1/info/features');
    expect(features).toEqual({
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      level: 'debug',
      msg: 'request',
      method: 'GET',
      route: '/api/v1/info/features',
      status: 200,
      seconds: expect.any(Number),
      user: null,
    });
    expect(Math.abs(Date.parse(features!.time) - Date.now())).toBeLessThan(60_000);
    expect(requestLines(server, '/api/v1/chutes/:chute')).toMatchObject([{ method: 'GET', status: 404 }]);
    expect(requestLines(server, null)).toMatchObject([{ method: 'DELETE', status: 405 }]);
  });

  it('prints that it listens, after the listening banner', () => {
    const lines = server.output().split('\n');
    const listening = lines.findIndex((line) => line.startsWith('{') && (JSON.parse(line) as Line).msg === 'listening');
    expect(JSON.parse(lines[listening]!)).toMatchObject({ level: 'info', url: server.url });
    expect(listening).toBeGreaterThan(lines.indexOf(`listening on ${server.url}`));
  });

  it('serves its recent lines at GET /api/v1/logs as newline-delimited JSON {time, stream, message}, each message a line it printed', async () => {
    await call(server.url, 'GET', '/api/v1/info/hardware');
    await printed(server, '/api/v1/info/hardware');
    const entries = await logs(server, '?tail=5');
    expect(entries).toHaveLength(5);
    const printedLines = server.output().split('\n');
    for (const entry of entries) {
      expect(entry).toEqual({ time: JSON.parse(entry.message).time, stream: 'stdout', message: expect.any(String) });
      expect(printedLines).toContain(entry.message);
    }
    expect(entries.map((entry) => JSON.parse(entry.message))).toContainEqual(expect.objectContaining({ route: '/api/v1/info/hardware', status: 200 }));
    expect((await logs(server, '?tail=1&timestamps=false'))[0]).toEqual({ stream: 'stdout', message: expect.any(String) });
  });

  it('keeps only the last lines that fit in --log-buffer KiB: the older ones leave GET /api/v1/logs', async () => {
    // Some 150 bytes a request line: 500 of them are more than 64 KiB.
    for (let i = 0; i < 50; i++) await Promise.all(Array.from({ length: 10 }, () => call(server.url, 'GET', '/api/v1/info/software')));
    await printed(server, '/api/v1/info/software', 500);
    const entries = await logs(server);
    const bytes = entries.reduce((sum, entry) => sum + Buffer.byteLength(entry.message) + 1, 0);
    expect(bytes).toBeLessThanOrEqual(64 * 1024);
    expect(bytes).toBeGreaterThan(60 * 1024);
    expect(entries.length).toBeLessThan(500);
    expect(entries.map((entry) => JSON.parse(entry.message).msg)).not.toContain('listening');
    const since = entries[10]!.time;
    expect((await logs(server, `?since=${since}`)).map((entry) => entry.time).every((time) => time >= since)).toBe(true);
  });

  it('follows: GET /api/v1/logs?follow=true sends each new line as it is written', async () => {
    const aborted = new AbortController();
    const res = await fetch(`${server.url}/api/v1/logs?follow=true&tail=0`, { signal: aborted.signal });
    expect(res.status).toBe(200);
    await call(server.url, 'GET', '/api/v1/info/environment');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('/api/v1/info/environment')) text += (await reader.read()).value ?? '';
    aborted.abort();
    const line = text.split('\n').find((one) => one.includes('/api/v1/info/environment'))!;
    expect(JSON.parse(JSON.parse(line).message)).toMatchObject({ msg: 'request', method: 'GET', route: '/api/v1/info/environment', status: 200 });
  });

  it('sends each new line on /ws/paradrop_logs as ParaDrop does, the text pdtools node watch-logs prints', async () => {
    // pdtools (ParadropLabs/Paradrop tools/pdtools/pdtools/node.py, `watch_logs`) opens
    // ws://<target>/ws/paradrop_logs and prints each message as it comes (`print(message)`); the
    // daemon (paradrop/backend/paradrop_log_ws.py) sends each new log message's text, nothing else.
    const ws = opened(await openWebSocket(`${server.url}/ws/paradrop_logs`));
    await call(server.url, 'GET', '/api/v1/info/telemetry');
    await printed(server, '/api/v1/info/telemetry');
    let message = await ws.next();
    while (!message.includes('/api/v1/info/telemetry')) message = await ws.next();
    ws.close();
    expect(server.output().split('\n')).toContain(message);
    expect(JSON.parse(message)).toMatchObject({ level: 'debug', msg: 'request', route: '/api/v1/info/telemetry' });
    expect(await ws.closed).toMatchObject({ code: 1005 });
  });

  it('answers a bad query as a chute log does: 400 naming a value not of its form, 422 for until before since', async () => {
    const follow = await call(server.url, 'GET', '/api/v1/logs?follow=maybe');
    expect(follow).toMatchObject({ status: 400, type: 'application/problem+json', body: { errors: [{ path: 'query.follow' }] } });
    const until = await call(server.url, 'GET', '/api/v1/logs?since=2026-11-28T10:00:00Z&until=2026-11-28T09:00:00Z');
    expect(until).toMatchObject({ status: 422, body: { errors: [{ path: 'query.until', message: 'must not be before since' }] } });
    // A time ago, as a chute log takes it: a server started within the hour wrote no line before it, nor in the future.
    expect((await logs(server, '?since=1h')).length).toBeGreaterThan(0);
    expect(await logs(server, '?until=1h')).toEqual([]);
    expect(await logs(server, `?since=${Math.ceil(Date.now() / 1000) + 60}`)).toEqual([]);
    const tail = await call(server.url, 'GET', '/api/v1/logs?tail=ten');
    expect(tail).toMatchObject({ status: 400, type: 'application/problem+json', body: { errors: [{ path: 'query.tail' }] } });
  });
});

describe.each(Object.keys(COMMANDS) as (keyof typeof COMMANDS)[])('the daemon log of chutebox %s, as the device works', (command) => {
  it('has a line for each notable event of the device: a host configuration applied', async () => {
    const server = await COMMANDS[command]();
    const config = await call<Record<string, unknown>>(server.url, 'GET', '/api/v1/config/hostconfig');
    const put = await call(server.url, 'PUT', '/api/v1/config/hostconfig', { json: config.body });
    expect(put.status).toBe(200);
    await waitUntil('the line of the host configuration applied', () => jsonLines(server).some((line) => line.event === 'hostconfig.applied'), 10_000);
    const line = jsonLines(server).find((entry) => entry.event === 'hostconfig.applied')!;
    expect(line).toMatchObject({ level: 'info', msg: 'host configuration applied', success: true, event_id: expect.any(Number) });
    expect((await logs(server)).some((entry) => JSON.parse(entry.message).event === 'hostconfig.applied')).toBe(true);
  });
});

/** The `msg` of each message a websocket of the daemon's log sends, until one is `last`. */
async function messagesUntil(ws: WebSocketClient, last: (msg: string) => boolean): Promise<string[]> {
  const msgs: string[] = [];
  while (msgs.length === 0 || !last(msgs.at(-1)!)) msgs.push((JSON.parse(await ws.next()) as Line).msg);
  return msgs;
}

describe.each(Object.keys(COMMANDS) as (keyof typeof COMMANDS)[])('/ws/paradrop_logs of chutebox %s at the default level', (command) => {
  it('sends a change starting, its effect and its end as they happen, what pdtools node watch-logs prints', async () => {
    const server = await COMMANDS[command]();
    const ws = opened(await openWebSocket(`${server.url}/ws/paradrop_logs`));
    const config = await call<Record<string, unknown>>(server.url, 'GET', '/api/v1/config/hostconfig');
    const put = await call<{ change_id: number }>(server.url, 'PUT', '/api/v1/config/hostconfig', { json: config.body });
    expect(put.status).toBe(200);
    const id = put.body.change_id;
    const msgs = await messagesUntil(ws, (msg) => msg === `change ${id} (update-hostconfig) succeeded`);
    ws.close();
    expect(msgs.filter((msg) => msg.startsWith(`change ${id} `) || msg.startsWith('host configuration'))).toEqual([
      `change ${id} (update-hostconfig) running`,
      'host configuration applied',
      `change ${id} (update-hostconfig) succeeded`,
    ]);
  });
});

describe('/ws/paradrop_logs of chutebox emulate as its clock moves', () => {
  it('sends a station connecting once the emulated clock passes its arrival', async () => {
    const server = await COMMANDS.emulate();
    const ws = opened(await openWebSocket(`${server.url}/ws/paradrop_logs`));
    const clock = await call(server.url, 'PATCH', '/_chutebox/clock', { json: { advanceMs: 3_600_000 } });
    expect(clock.status).toBe(200);
    const [connected] = await messagesUntil(ws, (msg) => / connected \(/.test(msg)).then((msgs) => msgs.slice(-1));
    ws.close();
    expect(connected).toMatch(/^station ([0-9a-f]{2}:){5}[0-9a-f]{2} connected \([\w-]+\/[\w-]+\)$/);
  });
});

describe.each(Object.keys(COMMANDS) as (keyof typeof COMMANDS)[])('chutebox %s stopping', (command) => {
  it('ends the answers that follow the log, prints that it stops, and exits without waiting for them', async () => {
    const server = await COMMANDS[command]();
    const res = await fetch(`${server.url}/api/v1/logs?follow=true&tail=0`);
    const started = Date.now();
    await server.stop();
    const followed = (await res.text()).split('\n').filter(Boolean);
    expect(followed.map((line) => JSON.parse(JSON.parse(line).message).msg)).toEqual(['stopping']);
    // The server lets open connections finish for 5 s before it drops them: a follower must not hold it that long.
    expect(Date.now() - started).toBeLessThan(2000);
    expect(jsonLines(server).at(-1)).toMatchObject({ level: 'info', msg: 'stopping' });
  });
});

describe('the level of the daemon log', () => {
  /** The levels of the lines a server printed, and of those GET /api/v1/logs answers, after a request. */
  async function levelsAfterARequest(server: Started): Promise<{ printed: string[]; kept: string[] }> {
    await call(server.url, 'GET', '/api/v1/info/features');
    const kept = (await logs(server)).map((entry) => JSON.parse(entry.message).level as string);
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { printed: jsonLines(server).map((line) => line.level), kept };
  }

  it('is info by default: serve prints and keeps that it listens and warns that it has no password, and no request lines', async () => {
    const server = await COMMANDS.serve();
    const { printed, kept } = await levelsAfterARequest(server);
    expect(new Set(printed)).toEqual(new Set(['info', 'warn']));
    expect(kept).toEqual(printed.slice(0, kept.length));
    expect(jsonLines(server).filter((line) => line.msg === 'request')).toEqual([]);
    expect(jsonLines(server).find((line) => line.level === 'warn')?.msg).toMatch(/^no password is set/);
  });

  it.each([
    ['serve --log-level warn', () => COMMANDS.serve(['--log-level', 'warn']), ['warn']],
    ['emulate with CHUTEBOX_LOG_LEVEL=error', () => COMMANDS.emulate([], { ...CLEAN_ENV, CHUTEBOX_LOG_LEVEL: 'error' }), []],
  ])('%s prints and keeps the lines of that level and the more severe ones only', async (_name, launch, levels) => {
    const { printed, kept } = await levelsAfterARequest(await launch());
    expect(printed).toEqual(levels);
    expect(kept).toEqual(levels);
  });

  it('refuses a level it does not know, naming the flag', async () => {
    await expect(COMMANDS.emulate(['--log-level', 'verbose'])).rejects.toThrow(/--log-level must be one of error, warn, info, debug, not "verbose"/);
  });
});

describe('/ws/paradrop_logs on an emulator with auth', () => {
  it('refuses a client without credentials with 401, and takes one with a token, as pdtools sends it', async () => {
    const server = await start(['emulate', '--port', '0', '--log-level', 'debug']);
    expect(refused(await openWebSocket(`${server.url}/ws/paradrop_logs`)).status).toBe(401);
    const login = await call<{ token: string }>(server.url, 'POST', '/api/v1/auth/local', { json: { username: 'paradrop', password: '' } });
    // pdtools' AuthenticatedClient.ws_request sends `Authorization: Bearer <token>`.
    const ws = opened(await openWebSocket(`${server.url}/ws/paradrop_logs`, { authorization: `Bearer ${login.body.token}` }));
    await call(server.url, 'GET', '/api/v1/info/features', { headers: { authorization: `Bearer ${login.body.token}` } });
    let message = await ws.next();
    while (!message.includes('/api/v1/info/features')) message = await ws.next();
    expect(JSON.parse(message)).toMatchObject({ msg: 'request', status: 200, user: 'paradrop' });
    ws.close();
  });
});
