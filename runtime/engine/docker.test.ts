import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The built engine client, copied to a folder without node_modules to prove it stands alone. */
const BUNDLE = fileURLToPath(new URL('../../dist/chute-lifecycle.mjs', import.meta.url));

type Engine = typeof import('./docker.ts');

const RUNNING = { Id: 'aaa111', Names: ['/hello'], State: 'running', Labels: { 'io.chutebox.chute': 'hello' } };
const EXITED = { Id: 'bbb222', Names: ['/sleepy'], State: 'exited', Labels: { 'io.chutebox.chute': 'sleepy' } };
const STATS = {
  read: '2026-11-21T12:00:00Z',
  cpu_stats: { cpu_usage: { total_usage: 1234 } },
  memory_stats: { usage: 4096, limit: 8192 },
  pids_stats: { current: 3 },
};

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
  await copyFile(BUNDLE, path.join(dir, 'chute-lifecycle.mjs'));
  engine = (await import(pathToFileURL(path.join(dir, 'chute-lifecycle.mjs')).href)) as Engine;
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await rm(dir, { recursive: true, force: true });
});

describe('listChuteContainers (dist/chute-lifecycle.mjs)', () => {
  it('answers null when the socket does not exist', async () => {
    expect(await engine.listChuteContainers(path.join(dir, 'missing.sock'))).toBeNull();
  });

  it('answers null when the path is not a socket', async () => {
    expect(await engine.listChuteContainers(path.join(dir, 'chute-lifecycle.mjs'))).toBeNull();
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

describe('containerStats (dist/chute-lifecycle.mjs)', () => {
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

describe('chuteEngine (dist/chute-lifecycle.mjs)', () => {
  /** Containers of the fake engine by id: their labels and state. */
  const CONTAINERS: Record<string, { Labels: Record<string, string>; State: string }> = {
    aaa111: { Labels: { 'io.chutebox.chute': 'hello' }, State: 'running' },
    ddd444: { Labels: { 'org.example.role': 'not-a-chute' }, State: 'running' },
    eee555: { Labels: { 'io.chutebox.chute': 'other' }, State: 'running' },
  };
  let socket: string;
  let requests: { method: string; url: string; body: string }[];

  beforeAll(async () => {
    requests = [];
    ({ socket } = await fakeEngine('lifecycle.sock', (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        requests.push({ method: req.method!, url: req.url!, body });
        const url = new URL(req.url!, 'http://engine');
        const [, , id, op] = url.pathname.split('/');
        if (url.pathname === '/containers/create') {
          if (JSON.parse(body).Image === 'missing:1') return json(res, 404, { message: 'No such image: missing:1' });
          return json(res, 201, { Id: 'fff666', Warnings: [] });
        }
        const container = id === undefined ? undefined : CONTAINERS[id];
        if (container === undefined) return json(res, 404, { message: `No such container: ${id}` });
        if (req.method === 'GET' && op === 'json') return json(res, 200, { Id: id, Config: { Labels: container.Labels }, State: { Status: container.State } });
        if (req.method === 'POST' && op === 'start') return res.writeHead(304).end();
        if (req.method === 'POST' && (op === 'stop' || op === 'rename')) return res.writeHead(204).end();
        json(res, 404, { message: 'no such thing' });
      });
    }));
  });

  it('answers null when the socket does not exist', async () => {
    expect(await engine.chuteEngine(path.join(dir, 'missing.sock'))).toBeNull();
  });

  it('creates container chute-<name>, labelled with the chute, with its image, environment, ports, DNS, network mode and CPU shares', async () => {
    const chutes = (await engine.chuteEngine(socket))!;
    const id = await chutes.create('hello', {
      image: 'hello:1',
      env: { GREETING: 'hi', EMPTY: '' },
      portBindings: { 80: 8080, '53/udp': '5353' },
      dns: ['192.0.2.53'],
      networkMode: 'none',
      cpuShares: 512,
    });
    expect(id).toBe('fff666');
    const create = requests.find((r) => r.url.startsWith('/containers/create'))!;
    expect(new URL(create.url, 'http://engine').searchParams.get('name')).toBe('chute-hello');
    // dockerode repeats the name in the body, where the engine ignores it.
    const { name: _name, ...body } = JSON.parse(create.body) as Record<string, unknown>;
    expect(body).toEqual({
      Image: 'hello:1',
      Env: ['GREETING=hi', 'EMPTY='],
      Labels: { 'io.chutebox.chute': 'hello' },
      ExposedPorts: { '80/tcp': {}, '53/udp': {} },
      HostConfig: {
        NetworkMode: 'none',
        PortBindings: { '80/tcp': [{ HostPort: '8080' }], '53/udp': [{ HostPort: '5353' }] },
        Dns: ['192.0.2.53'],
        CpuShares: 512,
        LogConfig: { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '2' } },
      },
    });
  });

  it("fails with the engine's own message when the engine refuses", async () => {
    const chutes = (await engine.chuteEngine(socket))!;
    const spec = { image: 'missing:1', env: {}, portBindings: {}, dns: undefined, networkMode: 'none', cpuShares: undefined };
    await expect(chutes.create('hello', spec)).rejects.toThrow(/^No such image: missing:1$/);
  });

  it('stops, starts (already running is fine) and renames the container of the chute', async () => {
    const chutes = (await engine.chuteEngine(socket))!;
    requests.length = 0;
    await chutes.stop('hello', 'aaa111');
    await chutes.start('hello', 'aaa111');
    await chutes.rename('hello', 'aaa111', 'previous-aaa111');
    const posts = requests.filter((r) => r.method === 'POST').map((r) => new URL(r.url, 'http://engine'));
    expect(posts.map((u) => u.pathname)).toEqual(['/containers/aaa111/stop', '/containers/aaa111/start', '/containers/aaa111/rename']);
    expect(posts[2]!.searchParams.get('name')).toBe('chute-hello-previous-aaa111');
  });

  it("never stops, starts, renames or removes a container that is not labelled with the chute's name", async () => {
    const chutes = (await engine.chuteEngine(socket))!;
    requests.length = 0;
    for (const id of ['ddd444', 'eee555']) {
      await expect(chutes.stop('hello', id)).rejects.toThrow(/is not the container of chute hello/);
      await expect(chutes.start('hello', id)).rejects.toThrow(/is not the container of chute hello/);
      await expect(chutes.rename('hello', id, null)).rejects.toThrow(/is not the container of chute hello/);
      await expect(chutes.remove('hello', id)).rejects.toThrow(/is not the container of chute hello/);
    }
    await expect(chutes.stop('hello', '../../info')).rejects.toThrow(/is not a container id/);
    expect(requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('counts removing a container that is already gone as done', async () => {
    const chutes = (await engine.chuteEngine(socket))!;
    await expect(chutes.remove('hello', 'ccc333')).resolves.toBeUndefined();
  });
});
