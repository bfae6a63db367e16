import { spawnSync } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChangeAccepted } from '../functions/chutes/schemas.ts';
import type { HostConfig } from '../functions/config/host-config.ts';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { call, finalChange } from './support/http-client.ts';
import { useHttpController } from './support/http-controller.ts';
import { sshKey } from './support/ssh-keys.ts';
import { CLI, useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * POST /api/v1/config/factoryReset on `chutebox serve` (no container engine): afterwards the state dir
 * is what a fresh install leaves after its first start, but for the change log's high-water mark, and
 * the API answers as it does, but that new changes get ids above the old ones.
 */

const temp = useTempDir('chutebox-factory-reset-');
const APITOKEN = 'tok-factory-reset-7d2e9c';
const controller = useHttpController({ apitoken: APITOKEN });
const start = useChutebox();

const PASSWORD = 'factory reset password';

/** The change log's high-water mark: the one file a reset leaves that a fresh install has not. */
const NEXT_CHANGE_ID = path.join('changes', 'next-id');

/** One entry of a state dir: its type and mode, and a file's contents. */
interface Entry {
  type: 'file' | 'folder' | 'link' | 'other';
  mode: number;
  contents?: string;
}

/** `root` (as `.`) and every path under it (relative, sorted) with its type, mode and contents. */
async function tree(root: string): Promise<Record<string, Entry>> {
  const entries: Record<string, Entry> = { '.': { type: 'folder', mode: (await lstat(root)).mode & 0o7777 } };
  async function walk(dir: string): Promise<void> {
    for (const name of (await readdir(dir)).sort()) {
      const file = path.join(dir, name);
      const info = await lstat(file);
      const type = info.isFile() ? 'file' : info.isDirectory() ? 'folder' : info.isSymbolicLink() ? 'link' : 'other';
      const entry: Entry = { type, mode: info.mode & 0o7777 };
      if (type === 'file') entry.contents = await readFile(file, 'utf8');
      entries[path.relative(root, file)] = entry;
      if (type === 'folder') await walk(file);
    }
  }
  await walk(root);
  return entries;
}

/**
 * A tree with what differs between two fresh installs taken out: the random token secret, and the
 * times in pdconf's status (every other field of it stays).
 */
function comparable(entries: Record<string, Entry>): Record<string, Entry> {
  const copy = structuredClone(entries);
  const secret = copy[path.join('auth', 'jwt-secret')];
  if (secret !== undefined) delete secret.contents;
  const status = copy[path.join('pdconf', 'status.json')];
  if (status?.contents !== undefined) {
    const document = JSON.parse(status.contents) as { files: Record<string, { time?: unknown }> };
    for (const file of Object.values(document.files)) delete file.time;
    status.contents = JSON.stringify(document);
  }
  return copy;
}

describe('POST /api/v1/config/factoryReset on chutebox serve', () => {
  let freshTree: Record<string, Entry>;
  let generated: HostConfig;
  let stateDir: string;
  let home: string;
  let server: Started;
  let token: string;
  /** The change made before the reset, and the largest change id given before it. */
  let oldChangeId: number;
  let largestOldId: number;
  let serve: (state: string) => Promise<Started>;

  const bearer = (value = token) => ({ authorization: `Bearer ${value}` });
  const reset = (headers: Record<string, string> = {}) => call(server.url, 'POST', '/api/v1/config/factoryReset', { headers });
  /** The generated host configuration with another LAN address. */
  const configured = (ipaddr: string) => ({ ...generated, lan: { ...generated.lan, ipaddr } });
  /** PUT /api/v1/config/hostconfig: answers the change's id once it has succeeded. */
  async function changeHostConfig(ipaddr: string): Promise<number> {
    const put = await call<ChangeAccepted>(server.url, 'PUT', '/api/v1/config/hostconfig', { json: configured(ipaddr) });
    expect(put.status, put.text).toBe(200);
    expect((await finalChange(server.url, put.body.change_id)).state).toBe('succeeded');
    return put.body.change_id;
  }

  beforeAll(async () => {
    const dir = temp.path();
    home = path.join(dir, 'home', 'tester');
    await mkdir(home, { recursive: true });
    // The account is this process's own user: the runtime may then write its keys without being root.
    const passwdFile = path.join(dir, 'passwd');
    await writeFile(passwdFile, `tester:x:${process.getuid!()}:${process.getgid!()}:Test User:${home}:/bin/sh\n`);
    serve = (state: string) =>
      start(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', state, '--docker-socket', path.join(dir, 'none.sock'), '--passwd-file', passwdFile]);

    // A: a fresh install, after its first start.
    const fresh = await serve(path.join(dir, 'fresh'));
    generated = (await call<HostConfig>(fresh.url, 'GET', '/api/v1/config/hostconfig')).body;
    await fresh.stop();
    freshTree = await tree(path.join(dir, 'fresh'));

    // B: configured, provisioned, with an SSH key and a password.
    stateDir = path.join(dir, 'used');
    server = await serve(stateDir);
    oldChangeId = await changeHostConfig('10.77.0.1');
    const provision = await call(server.url, 'POST', '/api/v1/config/provision', {
      json: { routerId: 'r-reset', apitoken: APITOKEN, pdserver: controller().url, wampRouter: 'ws://127.0.0.1:9086/ws' },
    });
    expect(provision.status, provision.text).toBe(200);
    const key = await call(server.url, 'POST', '/api/v1/config/sshKeys/tester', { json: { key: sshKey('ed25519') } });
    expect(key.status, key.text).toBe(200);
    largestOldId = Math.max(...(await call<ChangeRecord[]>(server.url, 'GET', '/api/v1/changes/')).body.map((change: { id: number }) => change.id));
    expect(largestOldId).toBeGreaterThanOrEqual(oldChangeId);
    expect(spawnSync(process.execPath, [CLI, 'passwd', '--state-dir', stateDir], { input: `${PASSWORD}\n` }).status).toBe(0);
    const login = await call<{ token: string }>(server.url, 'POST', '/api/v1/auth/local', { json: { username: 'paradrop', password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
    token = login.body.token;
  });

  it('responds with 401 without credentials once a password is set, and resets nothing', async () => {
    const before = await tree(stateDir);
    expect((await reset()).status).toBe(401);
    expect(await tree(stateDir)).toEqual(before);
  });

  it('responds with 200 and success true with the token', async () => {
    const answer = await reset(bearer());
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ success: true, message: expect.stringContaining('factory reset') });
  });

  it('leaves the state dir as a fresh install leaves it: the same paths, types, modes and contents (but the token secret, the times and the next change id)', async () => {
    const usedTree = await tree(stateDir);
    // The one file a fresh install has not: the change ids go on above the old ones, none is given twice.
    expect(freshTree[NEXT_CHANGE_ID]).toBeUndefined();
    expect(usedTree[NEXT_CHANGE_ID]).toEqual({ type: 'file', mode: 0o600, contents: `${largestOldId + 1}\n` });
    delete usedTree[NEXT_CHANGE_ID];
    expect(Object.keys(usedTree)).toEqual(Object.keys(freshTree));
    expect(comparable(usedTree)).toEqual(comparable(freshTree));
    expect(usedTree[path.join('auth', 'jwt-secret')]!.contents).not.toBe(freshTree[path.join('auth', 'jwt-secret')]!.contents);
  });

  it('answers a loopback client without credentials again, unprovisioned, with the generated host configuration', async () => {
    const provision = await call(server.url, 'GET', '/api/v1/config/provision');
    expect(provision.status).toBe(200);
    expect(provision.body).toMatchObject({
      provisioned: false,
      routerId: null,
      pdserver: null,
      httpConnected: false,
      provisionedAt: null,
      telemetry: { enabled: false },
    });
    expect((await call(server.url, 'GET', '/api/v1/config/pdid')).body).toEqual({ pdid: '' });
    expect((await call(server.url, 'GET', '/api/v1/config/hostconfig')).body).toEqual(generated);
    expect((await call(server.url, 'GET', '/api/v1/changes/')).body).toEqual([]);
  });

  it("keeps the users' SSH keys", async () => {
    expect((await call(server.url, 'GET', '/api/v1/config/sshKeys/tester')).body).toEqual([sshKey('ed25519')]);
    expect(await readFile(path.join(home, '.ssh', 'authorized_keys'), 'utf8')).toBe(`${sshKey('ed25519')}\n`);
  });

  it('responds with 404 to a change id from before the reset, and gives the next change an id above every old one', async () => {
    const old = await call(server.url, 'GET', `/api/v1/changes/${oldChangeId}`);
    expect(old.status, old.text).toBe(404);
    expect(await changeHostConfig('10.77.0.2')).toBeGreaterThan(largestOldId);
  });

  it('after a restart on the same state dir, still answers 404 to the old change id and numbers on above every id given', async () => {
    const newest = Math.max(...(await call<ChangeRecord[]>(server.url, 'GET', '/api/v1/changes/')).body.map((change: { id: number }) => change.id));
    expect(newest).toBeGreaterThan(largestOldId);
    await server.stop();
    server = await serve(stateDir);
    expect((await call(server.url, 'GET', `/api/v1/changes/${oldChangeId}`)).status).toBe(404);
    expect(await changeHostConfig('10.77.0.3')).toBeGreaterThan(newest);
  });

  it('refuses the token from before the reset once a password is set again; a new login works', async () => {
    expect(spawnSync(process.execPath, [CLI, 'passwd', '--state-dir', stateDir], { input: `${PASSWORD}\n` }).status).toBe(0);
    expect((await call(server.url, 'GET', '/api/v1/config/provision', { headers: bearer() })).status).toBe(401);
    const login = await call<{ token: string }>(server.url, 'POST', '/api/v1/auth/local', { json: { username: 'paradrop', password: PASSWORD } });
    expect(login.status).toBe(200);
    expect((await call(server.url, 'GET', '/api/v1/config/provision', { headers: bearer(login.body.token) })).status).toBe(200);
  });
});
