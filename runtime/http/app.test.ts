import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { fixedAuth } from '../auth/index.ts';
import { createApp } from './app.ts';
import { listen } from './listen.ts';
import { functionsFolder } from '../../test/support/test-bundles.ts';
import { streamedBody } from '../../test/support/streamed-body.ts';

let dir: string;

beforeAll(async () => {
  dir = await functionsFolder(['test-echo.mjs', 'test-upload.mjs'], ['info-features-get.mjs', 'config-ssh-keys-get.mjs']);
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('createApp', () => {
  it('hands a bundle decoded params, the query, lower-case headers and the decoded body', async () => {
    const app = await createApp({ functionsDir: dir, device: memoryDevice(), auth: null });
    const res = await app.request('/api/v1/test/echo/hello%20world?verbose=1', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Trace': 'abc' },
      body: '{"ssid":"lab"}',
    });
    expect(res.status).toBe(200);
    const input = (await res.json()) as Record<string, Record<string, unknown>>;
    expect(input.params).toEqual({ name: 'hello world' });
    expect(input.query).toEqual({ verbose: '1' });
    expect(input.headers).toMatchObject({ 'x-trace': 'abc', 'content-type': 'application/json' });
    expect(input.body).toEqual({ ssid: 'lab' });
  });

  it('hands a bundle the query and decoded params over HTTP too, and an empty query for a target without one', async () => {
    const server = await listen(await createApp({ functionsDir: dir, device: memoryDevice(), auth: null }), { host: '127.0.0.1', port: 0 });
    try {
      const echo = async (target: string) =>
        (await (await fetch(`${server.url}${target}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as Record<
          string,
          unknown
        >;
      expect(await echo('/api/v1/test/echo/a%2Fb?verbose=1&name=x')).toMatchObject({ params: { name: 'a/b' }, query: { verbose: '1', name: 'x' } });
      expect(await echo('/api/v1/test/echo/plain')).toMatchObject({ params: { name: 'plain' }, query: {} });
    } finally {
      await server.close();
    }
  });

  it('answers the same bytes, and their length, each time an answer is given again: short, short with non-ASCII text, and long', async () => {
    const passwd = 'paradrop:x:1000:1000::/home/paradrop:/bin/sh\nlab:x:1001:1001::/home/lab:/bin/sh\n';
    const key = (comment: string) => `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ${comment}\n`;
    const keys = { paradrop: key('café@lab'), lab: Array.from({ length: 40 }, (_, i) => key(`admin-${i}@lab`)).join('') };
    const device = memoryDevice({ accounts: { passwd, keys } });
    const server = await listen(await createApp({ functionsDir: dir, device, auth: null }), { host: '127.0.0.1', port: 0 });
    try {
      for (const [target, body] of [
        ['/api/v1/info/features', '["hostapd-control"]'],
        ['/api/v1/config/sshKeys/paradrop', JSON.stringify([key('café@lab').trim()])],
        ['/api/v1/config/sshKeys/lab', JSON.stringify(keys.lab.trim().split('\n'))],
      ] as const) {
        for (let i = 0; i < 3; i++) {
          const res = await fetch(`${server.url}${target}`);
          const bytes = new Uint8Array(await res.arrayBuffer());
          expect(bytes).toEqual(new TextEncoder().encode(body));
          expect(res.headers.get('content-length')).toBe(String(bytes.length));
        }
      }
    } finally {
      await server.close();
    }
  });

  it('answers a bundle on its path with a trailing slash too', async () => {
    const app = await createApp({ functionsDir: dir, device: memoryDevice({ containers: [] }), auth: null });
    const res = await app.request('/api/v1/info/features/');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(['hostapd-control', 'docker']);
  });

  it('mounts no login endpoint without an auth policy', async () => {
    const app = await createApp({ functionsDir: dir, device: memoryDevice(), auth: null });
    expect((await app.request('/api/v1/auth/local', { method: 'POST' })).status).toBe(404);
  });

  it('allows the configured CORS origins only', async () => {
    const app = await createApp({ functionsDir: dir, device: memoryDevice(), auth: null, corsOrigin: 'https://a.example, https://b.example' });
    const from = async (origin: string) => (await app.request('/api/v1/info/features', { headers: { origin } })).headers.get('access-control-allow-origin');
    expect(await from('https://b.example')).toBe('https://b.example');
    expect(await from('https://evil.example')).toBeNull();
  });

  it('refuses to start on a folder holding something that is not a function bundle', async () => {
    const broken = await functionsFolder([]);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${broken}/stray.mjs`, 'export const x = 1;');
    await expect(createApp({ functionsDir: broken, device: memoryDevice(), auth: null })).rejects.toThrow(/not a function bundle/);
    await rm(broken, { recursive: true, force: true });
  });
});

describe('createApp: a route that takes uploads (route.upload)', () => {
  it('hands an application/x-tar body over as its bytes, undecoded, and still decodes JSON on the same route', async () => {
    const app = await createApp({ functionsDir: dir, device: memoryDevice(), auth: null });
    const bytes = [0, 255, 0xc3, 0x28, 10];
    const res = await app.request('/api/v1/test/upload?name=web', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-tar' },
      body: new Uint8Array(bytes),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ bytes, text: '', query: { name: 'web' } });
    const json = await app.request('/api/v1/test/upload', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' });
    expect(await json.json()).toMatchObject({ body: { a: 1 }, text: '{"a":1}' });
  });

  it('takes an upload above the body limit up to the upload limit, and answers 413 above it', async () => {
    const app = await createApp({ functionsDir: dir, device: memoryDevice(), auth: null, bodyLimit: 100, uploadLimit: 1000 });
    const send = (type: string, size: number) =>
      app.request('/api/v1/test/upload', { method: 'POST', headers: { 'Content-Type': type }, body: new Uint8Array(size) });
    expect((await send('application/x-tar', 1000)).status).toBe(200);
    expect((await send('application/x-tar', 1001)).status).toBe(413);
    expect((await send('application/json', 101)).status).toBe(413);
    const echo = await app.request('/api/v1/test/echo/x', { method: 'POST', headers: { 'Content-Type': 'application/x-tar' }, body: new Uint8Array(101) });
    expect(echo.status).toBe(413);
  });
});

describe('createApp with fixedAuth (the emulator)', () => {
  it('needs credentials for every function and accepts the fixed account with an empty password', async () => {
    const app = await createApp({ functionsDir: dir, device: memoryDevice(), auth: await fixedAuth({ username: 'paradrop', password: '' }) });
    const refused = await app.request('/api/v1/info/features');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');

    const login = await app.request('/api/v1/auth/local', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'paradrop', password: '' }),
    });
    const { token, success } = (await login.json()) as { token: string; success: boolean };
    expect(success).toBe(true);
    expect((await app.request('/api/v1/info/features', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await app.request('/api/v1/info/features', { headers: { authorization: `Basic ${btoa('paradrop:')}` } })).status).toBe(200);
  });

  it('refuses Basic credentials from a page of another origin with 403, and takes them from its own, a listed one and no page', async () => {
    const auth = await fixedAuth({ username: 'paradrop', password: '' });
    const app = await createApp({ functionsDir: dir, device: memoryDevice(), auth, corsOrigin: 'https://portal.example' });
    const post = (headers: Record<string, string>) =>
      app.request('/api/v1/test/echo/reset', { method: 'POST', headers: { host: 'router.lan:8080', ...headers } });
    const basic = `Basic ${btoa('paradrop:')}`;
    const refused = await post({ authorization: basic, origin: 'http://evil.example' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(((await refused.json()) as { detail: string }).detail).toContain('Authorization: Bearer');
    for (const origin of ['http://router.lan:8080', 'https://router.lan:8080', 'https://portal.example']) {
      expect((await post({ authorization: basic, origin })).status, origin).toBe(200);
    }
    expect((await post({ authorization: basic })).status).toBe(200);
    const token = await auth.login('paradrop', '', undefined);
    expect((await post({ authorization: `Bearer ${token}`, origin: 'http://evil.example' })).status).toBe(200);
  });

  it('cuts a streamed login body over the limit with 413, and answers GET on the login path with 405', async () => {
    const app = await createApp({ functionsDir: dir, device: memoryDevice(), auth: await fixedAuth({ username: 'paradrop', password: '' }), bodyLimit: 64 });
    const streamed = streamedBody(' '.repeat(40), 1000);
    const res = await app.request('/api/v1/auth/local', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: streamed.body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(streamed.pulled()).toBeLessThan(10);
    const get = await app.request('/api/v1/auth/local');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('responds with 422 naming the field to a login without a password or with a username that is no string, and 400 to one that is not JSON', async () => {
    const app = await createApp({ functionsDir: dir, device: memoryDevice(), auth: await fixedAuth({ username: 'paradrop', password: '' }) });
    const login = (body: string) => app.request('/api/v1/auth/local', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const missing = await login('{"username":"paradrop"}');
    expect(missing.status).toBe(422);
    expect(await missing.json()).toMatchObject({ errors: [{ path: 'body.password', message: 'is required' }] });
    const wrongType = await login('{"username":5,"password":""}');
    expect(wrongType.status).toBe(422);
    expect(await wrongType.json()).toMatchObject({ errors: [{ path: 'body.username', message: 'must be a string' }] });
    const malformed = await login('{"username":');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ errors: [{ path: 'body', message: expect.stringMatching(/^is not valid JSON/) }] });
  });
});

describe('createApp on a build with a manifest (dist/manifest.json beside dist/functions)', () => {
  /**
   * A build folder: `functions/` with one bundle that records its import in a global (on
   * `/api/v1/test/counted/:name`, alias `/api/v1/test/tallied/:name`), and the manifest the build
   * writes beside it.
   */
  async function build(): Promise<{ functionsDir: string; imports: () => number }> {
    const root = await mkdtemp(path.join(tmpdir(), 'chutebox-manifest-'));
    builds.push(root);
    const key = `chuteboxImports${builds.length}`;
    await mkdir(path.join(root, 'functions'));
    await writeFile(
      path.join(root, 'functions', 'test-counted.mjs'),
      `globalThis.${key} = (globalThis.${key} ?? 0) + 1;
export const route = { method: 'GET', path: '/api/v1/test/counted/:name', aliases: ['/api/v1/test/tallied/:name'], summary: 'answers its name' };
export const invoke = async (input) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(input.params) });
export const handler = async () => ({});`,
    );
    const manifest = {
      functions: [
        {
          name: 'test-counted',
          file: 'functions/test-counted.mjs',
          method: 'GET',
          path: '/api/v1/test/counted/:name',
          aliases: ['/api/v1/test/tallied/:name'],
          summary: 'answers its name',
        },
      ],
    };
    await writeFile(path.join(root, 'manifest.json'), JSON.stringify(manifest));
    return { functionsDir: path.join(root, 'functions'), imports: () => ((globalThis as Record<string, unknown>)[key] as number | undefined) ?? 0 };
  }
  const builds: string[] = [];
  afterAll(() => Promise.all(builds.map((root) => rm(root, { recursive: true, force: true }))));

  it('imports no function bundle at start, answers 404 and 405 from the manifest alone, and imports a bundle once, on its first request', async () => {
    const { functionsDir, imports } = await build();
    const app = await createApp({ functionsDir, device: memoryDevice(), auth: null });
    expect(imports()).toBe(0);
    expect((await app.request('/api/v1/test/nothing')).status).toBe(404);
    const wrongMethod = await app.request('/api/v1/test/counted/a', { method: 'PUT' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect(imports()).toBe(0);
    const [first, second] = await Promise.all([app.request('/api/v1/test/counted/a'), app.request('/api/v1/test/counted/b')]);
    expect(await first.json()).toEqual({ name: 'a' });
    expect(await second.json()).toEqual({ name: 'b' });
    expect((await app.request('/api/v1/test/counted/c')).status).toBe(200);
    expect(imports()).toBe(1);
  });

  it('answers a route on each of its aliases with the same bundle, and 405 with Allow on an alias for another method', async () => {
    const { functionsDir, imports } = await build();
    const app = await createApp({ functionsDir, device: memoryDevice(), auth: null });
    const wrongMethod = await app.request('/api/v1/test/tallied/a', { method: 'POST' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect((await app.request('/api/v1/test/tallied')).status).toBe(404);
    expect(imports()).toBe(0);
    const [onPath, onAlias] = await Promise.all([app.request('/api/v1/test/counted/a'), app.request('/api/v1/test/tallied/b/')]);
    expect([onPath.status, onAlias.status]).toEqual([200, 200]);
    expect(await onAlias.json()).toEqual({ name: 'b' });
    expect(imports()).toBe(1);
  });
});
