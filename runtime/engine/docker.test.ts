import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The built engine client, copied to a folder without node_modules to prove it stands alone. */
const BUNDLE = fileURLToPath(new URL('../../dist/engine.mjs', import.meta.url));

type Engine = typeof import('./docker.ts');

const RUNNING = { Id: 'aaa111', Names: ['/hello'], State: 'running', Labels: { 'io.chutebox.chute': 'hello' } };
const EXITED = { Id: 'bbb222', Names: ['/sleepy'], State: 'exited', Labels: { 'io.chutebox.chute': 'sleepy' } };
const STATS = { read: '2026-11-21T12:00:00Z', cpu_stats: { cpu_usage: { total_usage: 1234 } }, memory_stats: { usage: 4096, limit: 8192 }, pids_stats: { current: 3 } };

let dir: string;
let engine: Engine;
const servers: Server[] = [];

/** A Docker Engine API stand-in on a UNIX socket, answering what `handle` answers. */
async function fakeEngine(name: string, handle: Parameters<typeof createServer>[1]): Promise<{ socket: string; requests: string[] }> {
  const socket = path.join(dir, name);
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url!);
    handle!(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { socket, requests };
}

function json(res: import('node:http').ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'chutebox-engine-'));
  await copyFile(BUNDLE, path.join(dir, 'engine.mjs'));
  engine = (await import(pathToFileURL(path.join(dir, 'engine.mjs')).href)) as Engine;
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await rm(dir, { recursive: true, force: true });
});

describe('listChuteContainers (dist/engine.mjs)', () => {
  it('answers null when the socket does not exist', async () => {
    expect(await engine.listChuteContainers(path.join(dir, 'missing.sock'))).toBeNull();
  });

  it('answers null when the path is not a socket', async () => {
    expect(await engine.listChuteContainers(path.join(dir, 'engine.mjs'))).toBeNull();
  });

  it('lists every chute-labelled container, running or not, without asking for stats', async () => {
    const { socket, requests } = await fakeEngine('docker.sock', (req, res) => {
      const url = new URL(req.url!, 'http://engine');
      if (url.pathname === '/containers/json') return json(res, 200, [RUNNING, EXITED]);
      json(res, 404, { message: 'no such thing' });
    });

    expect(await engine.listChuteContainers(socket)).toEqual([RUNNING, EXITED]);
    expect(requests).toHaveLength(1);
    const list = new URL(requests[0]!, 'http://engine');
    expect(list.pathname).toBe('/containers/json');
    expect(list.searchParams.get('all')).toBe('true');
    expect(JSON.parse(list.searchParams.get('filters')!)).toEqual({ label: ['io.chutebox.chute'] });
  });

  it('answers null when the engine answers with an error', async () => {
    const { socket } = await fakeEngine('broken.sock', (_req, res) => json(res, 500, { message: 'server error' }));
    expect(await engine.listChuteContainers(socket)).toBeNull();
  });

  it('answers null when the engine accepts the connection but never answers', async () => {
    const { socket } = await fakeEngine('silent.sock', () => {});
    expect(await engine.listChuteContainers(socket)).toBeNull();
  });
});

describe('containerStats (dist/engine.mjs)', () => {
  let socket: string;
  let requests: string[];

  beforeAll(async () => {
    ({ socket, requests } = await fakeEngine('stats.sock', (req, res) => {
      const url = new URL(req.url!, 'http://engine');
      if (url.pathname === `/containers/${RUNNING.Id}/stats` && url.searchParams.get('stream') === 'false') return json(res, 200, STATS);
      json(res, 404, { message: 'No such container' });
    }));
  });

  it('answers the one-shot stats body of a container', async () => {
    expect(await engine.containerStats(socket, RUNNING.Id)).toEqual(STATS);
  });

  it('answers null when the engine has no such container', async () => {
    expect(await engine.containerStats(socket, 'ccc333')).toBeNull();
  });

  it('answers null for an id that is neither a container id nor a name, without asking the engine', async () => {
    const before = requests.length;
    for (const id of ['../../info', 'a/b', '', '-x', 'aaa111?stream=true']) expect(await engine.containerStats(socket, id)).toBeNull();
    expect(requests.length).toBe(before);
  });

  it('answers null when the socket does not exist', async () => {
    expect(await engine.containerStats(path.join(dir, 'missing.sock'), RUNNING.Id)).toBeNull();
  });
});
