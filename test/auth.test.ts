import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, useChutebox, type Started } from './support/spawn.ts';

const PASSWORD = 'correct horse battery';
const FEATURES = '/api/v1/info/features';
const CHALLENGE = 'Bearer realm="chutebox", Basic realm="chutebox"';

let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'chutebox-auth-'));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const start = useChutebox();

function passwd(stateDir: string, input: string, extra: string[] = []) {
  return spawnSync(process.execPath, [CLI, 'passwd', '--state-dir', stateDir, ...extra], { input, encoding: 'utf8' });
}

const serve = (stateDir: string, host = '127.0.0.1') => start(['serve', '--host', host, '--port', '0', '--state-dir', stateDir]);

async function login(server: Started, username: string, password: string): Promise<Response> {
  return fetch(`${server.url}/api/v1/auth/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
}

const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An HS256 JWT made here, independently of the server's code. */
function jwt(claims: Record<string, unknown>, secret: Buffer, header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }): string {
  const unsigned = `${base64url(header)}.${base64url(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

describe('chutebox passwd', () => {
  it('stores only an scrypt hash of the password, in a 0600 file', async () => {
    const stateDir = path.join(tmp, 'passwd-state');
    const result = passwd(stateDir, `${PASSWORD}\n`);
    expect(result.status).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    const file = path.join(stateDir, 'auth', 'passwd.json');
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(PASSWORD);
    expect(JSON.parse(text)).toEqual({ users: { paradrop: expect.stringMatching(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/) } });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(stateDir, 'auth'))).mode & 0o777).toBe(0o700);
  });

  it('keeps the other accounts when it sets one with --user', async () => {
    const stateDir = path.join(tmp, 'users-state');
    expect(passwd(stateDir, 'first-password\n').status).toBe(0);
    expect(passwd(stateDir, 'second-password\n', ['--user', 'admin']).status).toBe(0);
    const { users } = JSON.parse(await readFile(path.join(stateDir, 'auth', 'passwd.json'), 'utf8')) as { users: Record<string, string> };
    expect(Object.keys(users).sort()).toEqual(['admin', 'paradrop']);
  });

  it('refuses an empty password with exit code 2 and writes nothing', async () => {
    const stateDir = path.join(tmp, 'empty-state');
    for (const input of ['\n', '']) {
      const result = passwd(stateDir, input);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/empty password/);
    }
    await expect(stat(path.join(stateDir, 'auth', 'passwd.json'))).rejects.toThrow();
  });
});

describe('chutebox serve with a password set', () => {
  let stateDir: string;
  let server: Started;
  let secret: Buffer;
  const now = () => Math.floor(Date.now() / 1000);
  const features = (authorization?: string) => fetch(`${server.url}${FEATURES}`, authorization ? { headers: { authorization } } : {});

  beforeAll(async () => {
    stateDir = path.join(tmp, 'serve-state');
    expect(passwd(stateDir, `${PASSWORD}\n`).status).toBe(0);
    server = await serve(stateDir);
    secret = await readFile(path.join(stateDir, 'auth', 'jwt-secret'));
  });

  it('responds with 401, a problem and WWW-Authenticate to a loopback request without credentials', async () => {
    const res = await features();
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(CHALLENGE);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 401, title: 'Unauthorized' });
  });

  it('answers the OpenAPI document without credentials, as the login: it is the build’s, with none of the device’s data', async () => {
    const res = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { openapi: string }).openapi).toMatch(/^3\.1\./);
  });

  it('POST /api/v1/auth/local responds with 401 and success false to a wrong password', async () => {
    const res = await login(server, 'paradrop', 'wrong');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ username: 'paradrop', success: false });
  });

  it('POST /api/v1/auth/local responds with 200 and a one-hour HS256 token that opens the API', async () => {
    const res = await login(server, 'paradrop', PASSWORD);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { username: string; success: boolean; token: string };
    expect(body).toEqual({ username: 'paradrop', success: true, token: expect.any(String) });
    const [header, claims] = body.token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header.alg).toBe('HS256');
    expect(claims.sub).toBe('paradrop');
    expect(claims.exp - claims.iat).toBe(3600);
    const ok = await features(`Bearer ${body.token}`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toContain('hostapd-control');
  });

  it('accepts a token signed with the secret of its state folder', async () => {
    expect((await features(`Bearer ${jwt({ sub: 'paradrop', iat: now(), exp: now() + 60 }, secret)}`)).status).toBe(200);
  });

  it('responds with 401 to an expired token', async () => {
    const res = await features(`Bearer ${jwt({ sub: 'paradrop', iat: now() - 7200, exp: now() - 3600 }, secret)}`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(CHALLENGE);
  });

  it('responds with 401 to a token signed with another secret', async () => {
    expect((await features(`Bearer ${jwt({ sub: 'paradrop', iat: now(), exp: now() + 60 }, randomBytes(32))}`)).status).toBe(401);
  });

  it('responds with 401 to an unsigned token (alg none)', async () => {
    const token = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: 'paradrop', iat: now(), exp: now() + 60 })}.`;
    expect((await features(`Bearer ${token}`)).status).toBe(401);
  });

  it.each(['Bearer', 'Bearer not-a-token', 'Bearer a.b.c', 'Token abc', 'Basic !!!', basic('', PASSWORD)])(
    'responds with 401 to the malformed header %j',
    async (authorization) => {
      expect((await features(authorization)).status).toBe(401);
    },
  );

  it('accepts Basic credentials, and refuses a wrong Basic password with 401', async () => {
    expect((await features(basic('paradrop', PASSWORD))).status).toBe(200);
    expect((await features(basic('paradrop', 'wrong'))).status).toBe(401);
  });

  it('uses a password changed by chutebox passwd at once, without a restart', async () => {
    const changedDir = path.join(tmp, 'changed-state');
    expect(passwd(changedDir, 'before-change\n').status).toBe(0);
    const changing = await serve(changedDir);
    expect((await login(changing, 'paradrop', 'before-change')).status).toBe(200);
    expect(passwd(changedDir, 'after-change\n').status).toBe(0);
    expect((await login(changing, 'paradrop', 'after-change')).status).toBe(200);
    expect((await login(changing, 'paradrop', 'before-change')).status).toBe(401);
  });
});

describe('failed logins', () => {
  it('are limited to 5 per address and minute: then even good credentials get 429 with Retry-After', async () => {
    const stateDir = path.join(tmp, 'limit-state');
    expect(passwd(stateDir, `${PASSWORD}\n`).status).toBe(0);
    const server = await serve(stateDir);
    for (let i = 0; i < 3; i++) expect((await login(server, 'paradrop', `guess-${i}`)).status).toBe(401);
    for (let i = 0; i < 2; i++) {
      expect((await fetch(`${server.url}${FEATURES}`, { headers: { authorization: basic('paradrop', `guess-${i}`) } })).status).toBe(401);
    }
    const limited = await login(server, 'paradrop', PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await fetch(`${server.url}${FEATURES}`, { headers: { authorization: basic('paradrop', PASSWORD) } })).status).toBe(429);
  });
});

/** An address of this machine that is not loopback, if it has one. */
const lanAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((info) => info !== undefined && info.family === 'IPv4' && !info.internal)?.address;

describe('chutebox serve before any password is set', () => {
  it.skipIf(lanAddress === undefined)(
    'serves a loopback client and refuses a client from another address with 403 telling to run chutebox passwd',
    async () => {
      const server = await serve(path.join(tmp, 'open-state'), '0.0.0.0');
      const port = new URL(server.url).port;
      expect((await fetch(`http://127.0.0.1:${port}${FEATURES}`)).status).toBe(200);

      const refused = await fetch(`http://${lanAddress}:${port}${FEATURES}`);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(((await refused.json()) as { detail: string }).detail).toContain('chutebox passwd');
      expect((await login(server, 'paradrop', '')).status).toBe(401);
    },
  );
});
