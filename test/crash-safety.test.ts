import { lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChangeAccepted } from '../functions/chutes/schemas.ts';
import type { HostConfig } from '../functions/config/host-config.ts';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { installChute } from './support/chute-state.ts';
import { call, changePages, finalChange, getJson } from './support/http-client.ts';
import { numberedKey } from './support/ssh-keys.ts';
import { CLEAN_ENV, serveArgs, startChutebox, useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { writeScript } from './support/tool-scripts.ts';

/*
 * `chutebox serve` killed with SIGKILL while it writes: host configuration PUTs and SSH key POSTs.
 * After a restart, what it acknowledged is there, a change a client read as `succeeded` still reads
 * so, and no temporary file of a write cut short is left (decision 0020).
 */

const temp = useTempDir('chutebox-crash-');
const start = useChutebox();

/** A change record file: `<id>.json`. */
const RECORD_FILE = /^[1-9][0-9]*\.json$/;
/** A temporary file of `writeFileAtomic`: `.<name>.<12 hex>.tmp`. */
const TEMP_FILE = /^\..+\.[0-9a-f]{12}\.tmp$/;
const UID = process.getuid?.() ?? 0;
const GID = process.getgid?.() ?? 0;

/**
 * A state dir, and a passwd file whose users have homes in the temp dir (`tester`'s made, owned by us:
 * no root needed); `extra` flags of serve after them.
 */
async function device(name: string, ...extra: string[]) {
  const dir = await temp.folder(name);
  const home = path.join(dir, 'home', 'tester');
  await mkdir(home, { recursive: true });
  const passwdFile = path.join(dir, 'passwd');
  await writeFile(passwdFile, `root:x:0:0:root:${path.join(dir, 'home', 'root')}:/bin/sh\ntester:x:${UID}:${GID}:Test User:${home}:/bin/sh\n`);
  const stateDir = path.join(dir, 'state');
  const args = serveArgs(stateDir, path.join(dir, 'none.sock'), ['--passwd-file', passwdFile, ...extra]);
  return { dir, home, stateDir, args };
}

/** Every file below the folders whose name is a temporary file's, relative to `root`. */
async function tempFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return entries.filter((entry) => TEMP_FILE.test(path.basename(entry))).sort();
}

/** A valid, distinct Ed25519 public key line for each `n`. */
const keyOf = (n: number) => numberedKey(n, 'crash');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Deterministic delays (mulberry32): the same kill moments on every run, as far as timing allows. */
function delays(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

describe('chutebox serve killed with SIGKILL during writes', () => {
  it('keeps every acknowledged SSH key and host configuration, every change read as succeeded, and leaves no temporary file, over 20 kills', async () => {
    // A bound no run reaches: this test is about the writes, the next one about the bound.
    const { home, stateDir, args } = await device('kills', '--change-log-records', '100000');
    const random = delays(20);
    /** The keys whose POST answered 200. */
    const acknowledgedKeys: string[] = [];
    /** The changes of the PUTs answered 200, with the LAN address each asked for. */
    const submitted = new Map<number, string>();
    /** The changes a client read as `succeeded`. */
    const readSucceeded = new Set<number>();
    let keys = 0;
    let configs = 0;
    /** The host configuration the PUTs edit (its LAN address), as the first start serves it. */
    let edited: HostConfig | undefined;

    for (let kill = 0; kill < 20; kill++) {
      const server = await startChutebox(args, CLEAN_ENV);
      let alive = true;
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      let sawSucceeded = () => {};
      const succeeded = new Promise<void>((resolve) => (sawSucceeded = resolve));
      const postKeys = async () => {
        while (alive) {
          const key = keyOf(keys++);
          const answer = await call(server.url, 'POST', '/api/v1/config/sshKeys/tester', { json: { key } });
          expect(answer.status, answer.text).toBe(200);
          acknowledgedKeys.push(key);
        }
      };
      const putConfigs = async () => {
        edited ??= await getJson<HostConfig>(server, '/config/hostconfig');
        while (alive) {
          const ipaddr = `10.${20 + (configs >> 8)}.${configs++ & 255}.1`;
          const answer = await call<ChangeAccepted>(server.url, 'PUT', '/api/v1/config/hostconfig', { json: { ...edited, lan: { ...edited.lan, ipaddr } } });
          expect(answer.status, answer.text).toBe(200);
          submitted.set(answer.body.change_id, ipaddr);
          for (;;) {
            const change = await getJson<ChangeRecord>(server, `/changes/${answer.body.change_id}`);
            if (change.state === 'succeeded') {
              readSucceeded.add(change.id);
              sawSucceeded();
            }
            if (change.state === 'succeeded' || change.state === 'failed') break;
          }
        }
      };
      // A request cut short by the kill is not acknowledged: its loop just ends.
      const writers = [postKeys(), putConfigs()].map((writer) => writer.catch((error: unknown) => (alive ? Promise.reject(error) : undefined)));
      // Every other kill comes just after a client read a change as succeeded; the others at any moment.
      const delay = random();
      const moment = kill % 2 === 1 ? succeeded.then(() => sleep(delay * 10)) : sleep(20 + delay * 300);
      await Promise.race([moment, sleep(10_000)]);
      alive = false;
      server.child.kill('SIGKILL');
      await exited;
      await Promise.all(writers);
    }

    const server = await start(args);
    const config = await getJson<HostConfig>(server, '/config/hostconfig');
    expect(await getJson(server, '/config/sshKeys/tester')).toEqual(expect.arrayContaining(acknowledgedKeys));
    const changes = new Map((await changePages(server)).flatMap((page) => page.changes).map((change) => [change.id, change]));
    for (const id of submitted.keys()) expect(['succeeded', 'failed'], `change ${id}`).toContain(changes.get(id)?.state);
    for (const id of readSucceeded) expect(changes.get(id)?.state, `change ${id}, read as succeeded before a kill`).toBe('succeeded');
    // The configuration in effect is the one of the last change that succeeded: a later one cut short was undone.
    const lastSucceeded = Math.max(...[...submitted.keys()].filter((id) => changes.get(id)?.state === 'succeeded'));
    expect(config.lan.ipaddr).toBe(submitted.get(lastSucceeded));
    // The start removes the debris while the API already answers: give it the moment it takes.
    await expect.poll(() => tempFiles(stateDir), { timeout: 10_000 }).toEqual([]);
    await expect.poll(() => tempFiles(home), { timeout: 10_000 }).toEqual([]);
    expect(acknowledgedKeys.length).toBeGreaterThan(20);
    expect(readSucceeded.size).toBeGreaterThanOrEqual(10);
  }, 120_000);

  it('keeps the change log within its bound and whole when killed while it removes records: nothing left of a removal, no torn record, no id given twice, over 10 kills', async () => {
    const { dir, stateDir, args } = await device('bound', '--change-log-records', '3');
    const reboot = await writeScript(dir, 'fake-reboot', 'exit 0');
    const changesDir = path.join(stateDir, 'changes');
    const random = delays(41);
    /** The largest change id a POST answered. */
    let largest = 0;
    for (let kill = 0; kill <= 10; kill++) {
      const server = await startChutebox([...args, '--reboot-command', reboot], CLEAN_ENV);
      // The log as the start left it: its record files and nothing else, at most 3 ended changes and the one a kill cut short.
      const names = await readdir(changesDir).catch(() => []);
      const files = names.filter((name) => RECORD_FILE.test(name)).sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
      expect(
        names.filter((name) => !files.includes(name) && name !== 'next-id'),
        `after kill ${kill}`,
      ).toEqual([]);
      expect(files.length).toBeLessThanOrEqual(4);
      // Each file a whole record (JSON.parse throws on a torn one), and what is served is what is on disk.
      const onDisk = await Promise.all(files.map(async (name) => JSON.parse(await readFile(path.join(changesDir, name), 'utf8')) as ChangeRecord));
      expect(onDisk.map((change) => `${change.id}.json`)).toEqual(files);
      const served = (await changePages(server)).flatMap((page) => page.changes).reverse();
      expect(served).toEqual(onDisk);
      if (kill === 10) {
        await server.stop();
        break;
      }

      let alive = true;
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      const rebooting = (async () => {
        while (alive) {
          const answer = await call<ChangeAccepted>(server.url, 'POST', '/api/v1/changes/', {
            json: { name: '__PARADROP__', updateClass: 'ROUTER', updateType: 'reboot' },
          });
          expect(answer.status, answer.text).toBe(200);
          expect(answer.body.change_id, 'a new id above every id given before').toBeGreaterThan(largest);
          largest = answer.body.change_id;
          await finalChange(server.url, largest);
        }
      })().catch((error: unknown) => (alive ? Promise.reject(error) : undefined));
      await sleep(100 + random() * 400);
      alive = false;
      server.child.kill('SIGKILL');
      await exited;
      await rebooting;
    }
    expect(largest).toBeGreaterThanOrEqual(10);
  }, 120_000);

  it('removes at start the temporary files that writes cut short left of its own files, and nothing else', async () => {
    const { home, stateDir, args } = await device('leftovers');
    const hex = '0123456789ab';
    const ssh = path.join(home, '.ssh');
    await installChute(stateDir, 'hello', 'hello:1', {});
    for (const dir of ['changes', 'pdconf', 'auth']) await mkdir(path.join(stateDir, dir), { recursive: true });
    await mkdir(ssh);
    const left = [
      `.hostconfig.yaml.${hex}.tmp`,
      `.hostconfig.previous.yaml.${hex}.tmp`,
      `.hostconfig.rollback.json.${hex}.tmp`,
      `.provision.json.${hex}.tmp`,
      `changes/.3.json.${hex}.tmp`,
      `changes/.next-id.${hex}.tmp`,
      `changes/.removing.${hex}.tmp`,
      `pdconf/.wireless.${hex}.tmp`,
      `pdconf/.status.json.${hex}.tmp`,
      `auth/.jwt-secret.${hex}.tmp`,
      `chutes/hello/.service.json.${hex}.tmp`,
    ];
    // Not of a write of chutebox's own files: kept.
    const kept = [
      `.notes.txt.${hex}.tmp`,
      '.hostconfig.yaml.tmp',
      `changes/.3.json.${hex}.tmp.bak`,
      `pdconf/.wireless.${hex.toUpperCase()}.tmp`,
      'auth/jwt-secret.tmp',
    ];
    for (const name of [...left, ...kept]) await writeFile(path.join(stateDir, name), 'psk: a copy of a secret\n');
    await writeFile(path.join(ssh, `.authorized_keys.${hex}.tmp`), 'ssh-ed25519 AAAA… half a copy\n');
    await writeFile(path.join(ssh, `.known_hosts.${hex}.tmp`), 'not ours\n');
    await symlink(path.join(home, 'elsewhere'), path.join(ssh, `.authorized_keys.${'f'.repeat(12)}.tmp`));

    const server = await start(args);
    // The device configuration starts after the server listens; GET pdconf waits for that start.
    await getJson(server, '/config/pdconf');
    expect(await tempFiles(stateDir)).toEqual(kept.filter((name) => TEMP_FILE.test(path.basename(name))).sort());
    for (const name of kept) expect(await readFile(path.join(stateDir, name), 'utf8')).toBe('psk: a copy of a secret\n');
    expect((await readdir(ssh)).sort()).toEqual([`.authorized_keys.${'f'.repeat(12)}.tmp`, `.known_hosts.${hex}.tmp`]);
    expect((await lstat(path.join(ssh, `.authorized_keys.${'f'.repeat(12)}.tmp`))).isSymbolicLink()).toBe(true);
  });
});
