import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ChangeAccepted } from '../functions/chutes/schemas.ts';
import type { HostConfig } from '../functions/config/host-config.ts';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { call, callApi, finalChange } from './support/http-client.ts';
import { openWebSocket, opened, refused } from './support/websocket-client.ts';
import { useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { writeScript } from './support/tool-scripts.ts';

/**
 * ParaDrop's change stream, `GET /ws/changes/<id>/stream`, the websocket pdtools opens after each
 * change, over HTTP: on `chutebox emulate` with the default scenario, and on `chutebox serve` with a
 * host configuration change.
 */

const temp = useTempDir('chutebox-change-stream-');
const start = useChutebox();

const stream = (server: Started, id: number | string) => `${server.url}/ws/changes/${id}/stream`;
const BASIC = `Basic ${Buffer.from('paradrop:').toString('base64')}`;

interface StreamEnd {
  /** Every message, decoded, in the order they came. */
  messages: { time: number; message: string }[];
  code: number;
  reason: string;
}

/** Opens a change stream and collects every message until the server closes it. */
function streamToEnd(url: string, headers: Record<string, string> = {}, onOpen: (ws: WebSocket) => void = () => {}): Promise<StreamEnd> {
  const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers });
  const messages: StreamEnd['messages'] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
  ws.once('open', () => onOpen(ws));
  return new Promise((resolve, reject) => {
    ws.once('close', (code, reason) => resolve({ messages, code, reason: reason.toString() }));
    ws.once('error', reject);
  });
}

/** What the stream must have sent for a final change: its messages, each once, in order, as ParaDrop's {time, message}. */
function asStreamed(change: ChangeRecord): StreamEnd['messages'] {
  return change.messages.map(({ time, text }) => ({ time: Date.parse(time) / 1000, message: text }));
}

/** Queues a change with a call below /api/v1 and answers its id. */
async function submit(server: Started, method: string, endpoint: string, headers: Record<string, string> = {}): Promise<number> {
  const answer = await callApi<ChangeAccepted>(server, method, endpoint, undefined, undefined, headers);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.change_id;
}

describe('GET /ws/changes/:id/stream on chutebox emulate', () => {
  let server: Started;

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--no-auth', '--change-delay', '50']);
  });

  it("sends the change's messages as JSON {time, message}, as GET /api/v1/changes/<id> lists them, each once, and closes with 1000 once it succeeded", async () => {
    const id = await submit(server, 'POST', '/chutes/hotspot/stop');
    const streamed = await streamToEnd(stream(server, id));
    const change = await finalChange(server.url, id);
    expect(change.state).toBe('succeeded');
    expect(streamed).toEqual({ messages: asStreamed(change), code: 1000, reason: `change ${id} succeeded` });
    for (const { time, message } of streamed.messages) {
      expect(typeof time).toBe('number');
      expect(typeof message).toBe('string');
    }
    expect(streamed.messages.map((m) => m.message)).toEqual(['queued', 'running', expect.stringMatching(/^stopped container [0-9a-f]{12}$/), 'succeeded']);
  });

  it('replays a change that is already finished, then closes with 1000', async () => {
    const id = await submit(server, 'POST', '/chutes/hotspot/start');
    const change = await finalChange(server.url, id);
    expect(await streamToEnd(stream(server, id))).toEqual({ messages: asStreamed(change), code: 1000, reason: `change ${id} succeeded` });
  });

  it('ignores text messages from the client', async () => {
    const id = await submit(server, 'POST', '/chutes/hello-world/restart');
    const streamed = await streamToEnd(stream(server, id), {}, (ws) => ws.send('hello?'));
    expect(streamed).toEqual({ messages: asStreamed(await finalChange(server.url, id)), code: 1000, reason: `change ${id} succeeded` });
  });

  it('responds with 404 (problem+json) and no upgrade for an id no change has, and 400 naming params.id for one that is not a whole number', async () => {
    const unknown = refused(await openWebSocket(stream(server, 9999)));
    expect(unknown).toMatchObject({ status: 404, type: 'application/problem+json', body: { status: 404, detail: 'there is no change with id 9999' } });
    expect(unknown.headers.connection).toBe('close');
    for (const id of ['abc', '-1', '1.5']) {
      expect(refused(await openWebSocket(stream(server, id)))).toMatchObject({
        status: 400,
        type: 'application/problem+json',
        body: { errors: [{ path: 'params.id' }] },
      });
    }
  });

  it('responds to a plain GET with 426 Upgrade Required (problem+json, Upgrade: websocket), after the same checks', async () => {
    const id = await submit(server, 'POST', '/chutes/hotspot/stop');
    const res = await fetch(stream(server, id));
    expect(res.status).toBe(426);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('upgrade')).toBe('websocket');
    expect(await res.json()).toMatchObject({ status: 426, title: 'Upgrade Required' });
    expect((await fetch(stream(server, 9999))).status).toBe(404);
    const post = await fetch(stream(server, id), { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });
});

describe('GET /ws/changes/:id/stream while the change runs on chutebox emulate (a minute per step)', () => {
  let server: Started;

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--no-auth', '--change-delay', '60000']);
  });

  it('sends the messages so far and stays open; a binary message closes it with 1003', async () => {
    const id = await submit(server, 'POST', '/chutes/hotspot/stop');
    const ws = opened(await openWebSocket(stream(server, id)));
    expect(JSON.parse(await ws.next())).toEqual({ time: expect.any(Number), message: 'queued' });
    ws.send(Buffer.from('stop'), { binary: true });
    expect(await ws.closed).toEqual({ code: 1003, reason: expect.stringContaining('binary') });
  });

  it('stopping the server closes an open stream with 1001, and the server exits', async () => {
    const id = await submit(server, 'POST', '/chutes/hello-world/stop');
    const ws = opened(await openWebSocket(stream(server, id)));
    expect(JSON.parse(await ws.next())).toMatchObject({ message: 'queued' });
    await server.stop();
    expect(server.child.exitCode).toBe(0);
    expect(await ws.closed).toEqual({ code: 1001, reason: 'the server is stopping' });
  });
});

describe('GET /ws/changes/:id/stream behind the emulator login', () => {
  let server: Started;

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--change-delay', '50']);
  });

  it('responds with 401 (problem+json, WWW-Authenticate) without credentials, as any /api/v1 request', async () => {
    const id = await submit(server, 'POST', '/chutes/hotspot/stop', { authorization: BASIC });
    for (const target of [stream(server, id), stream(server, 9999)]) {
      const answer = refused(await openWebSocket(target));
      expect(answer).toMatchObject({ status: 401, type: 'application/problem+json', body: { status: 401 } });
      expect(answer.headers['www-authenticate']).toMatch(/^Bearer /);
    }
    expect((await fetch(stream(server, id))).status).toBe(401);
  });

  it('streams a change to its end with the credentials of the emulator account', async () => {
    const id = await submit(server, 'POST', '/chutes/hotspot/restart', { authorization: BASIC });
    const streamed = await streamToEnd(stream(server, id), { authorization: BASIC });
    expect(streamed).toEqual({
      messages: asStreamed(await finalChange(server.url, id, { authorization: BASIC })),
      code: 1000,
      reason: `change ${id} succeeded`,
    });
  });
});

describe('GET /ws/changes/:id/stream on chutebox serve', () => {
  it('streams a PUT /api/v1/config/hostconfig change while it runs, to its end', async () => {
    const dir = await temp.folder('serve');
    const hold = path.join(dir, 'hold');
    const go = path.join(dir, 'go');
    // Applies at once, but while <dir>/hold exists, waits for <dir>/go first: the change stays running until the test lets it go on.
    const apply = await writeScript(dir, 'apply', `if [ -e '${hold}' ]; then while [ ! -e '${go}' ]; do sleep 0.02; done; fi\nexit 0`);
    const commands = ['network', 'wireless', 'dhcp', 'firewall'].flatMap((file) => [`--pdconf-apply-${file}`, `${apply} ${file} {file}`]);
    const server = await start([
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--state-dir',
      path.join(dir, 'state'),
      '--docker-socket',
      path.join(dir, 'none.sock'),
      '--passwd-file',
      path.join(dir, 'passwd'),
      ...commands,
    ]);
    const config = (await call<HostConfig>(server.url, 'GET', '/api/v1/config/hostconfig')).body;

    await writeFile(hold, '');
    try {
      const put = await call<ChangeAccepted>(server.url, 'PUT', '/api/v1/config/hostconfig', {
        json: { ...config, lan: { ...config.lan, ipaddr: '10.42.0.1' } },
      });
      expect(put.status, put.text).toBe(200);
      const id: number = put.body.change_id;
      let first: unknown;
      const end = await streamToEnd(stream(server, id), {}, (ws) =>
        ws.once('message', (data) => {
          first = JSON.parse(data.toString());
          // The first message came while the change waits: let it go on.
          void writeFile(go, '');
        }),
      );
      const change = await finalChange(server.url, id);
      expect(change).toMatchObject({ action: 'update-hostconfig', state: 'succeeded' });
      expect(end).toEqual({ messages: asStreamed(change), code: 1000, reason: `change ${id} succeeded` });
      expect(first).toEqual({ time: expect.any(Number), message: 'queued' });
    } finally {
      // Never leaves the apply command waiting, whatever failed.
      await writeFile(go, '');
    }
  });
});
