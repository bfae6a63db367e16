import { execFile, execFileSync } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import type { Device } from '../../functions/core/device/index.ts';
import * as sshKeys from '../../functions/config/ssh-keys.get.ts';
import * as sshKeysAdd from '../../functions/config/ssh-keys.post.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { sshKey, type KeyName } from '../../test/support/ssh-keys.ts';
import { findOnPath } from '../../test/support/dockerd.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { hostAccounts } from './accounts.ts';

const temp = useTempDir('chutebox-accounts-');

const IS_ROOT = process.getuid?.() === 0;
/** As root, the keys go to a uid and gid of nobody here, to see that they are given away; else to ourselves. */
const OWNER = IS_ROOT ? { uid: 4242, gid: 4343 } : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
const SSH_KEYGEN = findOnPath('ssh-keygen');

/** A host with user `alice` (home made), `ghost` (home missing) and `root` (home missing) in a passwd file, and its accounts. */
async function host(name: string): Promise<{ device: Device; home: string; ssh: string; keys: string; root: string }> {
  const root = await temp.folder(name);
  const home = path.join(root, 'home', 'alice');
  await mkdir(home, { recursive: true });
  const passwdFile = path.join(root, 'passwd');
  await writeFile(
    passwdFile,
    `root:x:0:0:root:${path.join(root, 'home', 'root')}:/bin/sh\nalice:x:${OWNER.uid}:${OWNER.gid}:Alice:${home}:/bin/sh\nghost:x:4244:4244::${path.join(root, 'home', 'ghost')}:/bin/sh\n`,
  );
  const device = { ...memoryDevice(), accounts: hostAccounts({ passwdFile }) };
  const ssh = path.join(home, '.ssh');
  return { device, home, ssh, keys: path.join(ssh, 'authorized_keys'), root };
}

/** Every entry under a folder with its mode and contents, to see that nothing changed. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true })) {
    const file = path.join(dir, entry);
    const info = await lstat(file);
    out[entry] = `${(info.mode & 0o7777).toString(8)} ${info.isFile() ? await readFile(file, 'utf8') : info.isSymbolicLink() ? 'link' : 'dir'}`;
  }
  return out;
}

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;
const ALICE = { user: 'alice' };

describe('POST /api/v1/config/sshKeys/:user on the host', () => {
  it('creates ~/.ssh (700) and authorized_keys (600), both owned by the user, holding the key', async () => {
    const { device, ssh, keys } = await host('create');
    expect(await callFunction(sshKeysAdd, device, ALICE, { key: sshKey('ed25519') })).toEqual({ status: 200, body: [sshKey('ed25519')] });
    expect(await readFile(keys, 'utf8')).toBe(`${sshKey('ed25519')}\n`);
    expect(await modeOf(ssh)).toBe(0o700);
    expect(await modeOf(keys)).toBe(0o600);
    expect(await readdir(ssh)).toEqual(['authorized_keys']);
    if (!IS_ROOT) return void console.warn('skipped the ownership check: not root, so the keys stay with our own uid');
    for (const file of [ssh, keys]) expect(await stat(file)).toMatchObject({ uid: 4242, gid: 4343 });
  });

  it.skipIf(SSH_KEYGEN === null)(
    `writes a file that ssh-keygen -l reads every key of${SSH_KEYGEN === null ? ' (skipped: ssh-keygen is not on PATH)' : ''}`,
    async () => {
      const { device, keys } = await host('keygen');
      const names: KeyName[] = ['ed25519', 'rsa-2048', 'ecdsa-256', 'ecdsa-384', 'ecdsa-521', 'sk-ed25519', 'sk-ecdsa-256'];
      for (const name of names) expect((await callFunction(sshKeysAdd, device, ALICE, { key: sshKey(name) })).status).toBe(200);
      const { stdout } = await promisify(execFile)(SSH_KEYGEN!, ['-l', '-f', keys]);
      const listed = stdout.trim().split('\n');
      expect(listed).toHaveLength(names.length);
      expect(listed.map((line) => line.split(' ').slice(2, -1).join(' '))).toEqual(names.map((name) => sshKey(name).split(' ').slice(2).join(' ')));
    },
  );

  it('keeps every existing byte (options, comments, no final newline) and an existing ~/.ssh as it is', async () => {
    const { device, ssh, keys } = await host('existing');
    await mkdir(ssh, { mode: 0o755 });
    const before = `# ops\r\ncommand="uptime",no-pty ${sshKey('rsa-2048')}\n\n${sshKey('ecdsa-256')}`;
    await writeFile(keys, before, { mode: 0o644 });
    expect((await callFunction(sshKeysAdd, device, ALICE, { key: sshKey('ed25519') })).body).toEqual([
      `command="uptime",no-pty ${sshKey('rsa-2048')}`,
      sshKey('ecdsa-256'),
      sshKey('ed25519'),
    ]);
    expect(await readFile(keys, 'utf8')).toBe(`${before}\n${sshKey('ed25519')}\n`);
    expect(await modeOf(keys)).toBe(0o600);
    expect(await modeOf(ssh)).toBe(0o755);
  });

  it('keeps every key when several are added at once', async () => {
    const { device, keys } = await host('concurrent');
    const names: KeyName[] = ['ed25519', 'rsa-2048', 'ecdsa-256', 'ecdsa-384', 'ecdsa-521'];
    const answers = await Promise.all(names.map((name) => callFunction(sshKeysAdd, device, ALICE, { key: sshKey(name) })));
    expect(answers.map((answer) => answer.status)).toEqual(names.map(() => 200));
    expect((await readFile(keys, 'utf8')).trim().split('\n').sort()).toEqual(names.map((name) => sshKey(name)).sort());
  });

  it('responds with 409 for a duplicate key, and changes nothing', async () => {
    const { device, home } = await host('duplicate');
    await callFunction(sshKeysAdd, device, ALICE, { key: sshKey('ed25519') });
    const before = await snapshot(home);
    const [type, data] = sshKey('ed25519').split(' ');
    expect(await callFunction(sshKeysAdd, device, ALICE, { key: `${type} ${data} alice@other-laptop` })).toMatchObject({ status: 409 });
    expect(await snapshot(home)).toEqual(before);
  });

  it('responds with 422 for an invalid key, and creates nothing', async () => {
    const { device, home } = await host('invalid');
    expect(await callFunction(sshKeysAdd, device, ALICE, { key: sshKey('rsa-1024') })).toMatchObject({
      status: 422,
      body: { errors: [{ path: 'body.key', message: 'RSA keys need at least 2048 bits; this one has 1024' }] },
    });
    expect(await readdir(home)).toEqual([]);
  });

  it('responds with 404 for a user the passwd file lacks, and creates nothing', async () => {
    const { device, root } = await host('unknown');
    const before = await snapshot(root);
    expect(await callFunction(sshKeysAdd, device, { user: 'mallory' }, { key: sshKey('ed25519') })).toMatchObject({ status: 404 });
    expect(await snapshot(root)).toEqual(before);
  });

  it('responds with 409 when the home folder does not exist, and makes none', async () => {
    const { device, root } = await host('ghost');
    expect(await callFunction(sshKeysAdd, device, { user: 'ghost' }, { key: sshKey('ed25519') })).toMatchObject({
      status: 409,
      body: { detail: `the home folder of user ghost, ${path.join(root, 'home', 'ghost')}, does not exist` },
    });
    expect(await readdir(path.join(root, 'home'))).toEqual(['alice']);
  });

  it('refuses (409) a ~/.ssh that is a symbolic link, for writing and reading, and writes nothing where it points', async () => {
    const { device, home, ssh, root } = await host('ssh-link');
    const elsewhere = await temp.folder('ssh-link-target');
    await writeFile(path.join(elsewhere, 'authorized_keys'), `${sshKey('rsa-2048')}\n`);
    await symlink(elsewhere, ssh);
    const before = { home: await snapshot(home), elsewhere: await snapshot(elsewhere) };
    expect(await callFunction(sshKeysAdd, device, ALICE, { key: sshKey('ed25519') })).toMatchObject({
      status: 409,
      body: { detail: `${ssh} of user alice is a symbolic link; chutebox does not follow links in a home folder: replace it with a folder` },
    });
    expect(await callFunction(sshKeys, device, ALICE)).toMatchObject({ status: 409 });
    expect({ home: await snapshot(home), elsewhere: await snapshot(elsewhere) }).toEqual(before);
    expect(root).not.toBe(elsewhere);
  });

  it('refuses (409) an authorized_keys that is a symbolic link, and leaves the file it points to alone', async () => {
    const { device, ssh, keys } = await host('keys-link');
    const target = path.join(await temp.folder('keys-link-target'), 'shadow');
    await writeFile(target, 'root:$6$secret:19000:0:99999:7:::\n', { mode: 0o640 });
    await mkdir(ssh, { mode: 0o700 });
    await symlink(target, keys);
    expect(await callFunction(sshKeysAdd, device, ALICE, { key: sshKey('ed25519') })).toMatchObject({
      status: 409,
      body: { detail: `${keys} of user alice is a symbolic link; chutebox does not follow links in a home folder: replace it with a file` },
    });
    expect(await callFunction(sshKeys, device, ALICE)).toMatchObject({ status: 409 });
    expect(await readFile(target, 'utf8')).toBe('root:$6$secret:19000:0:99999:7:::\n');
    expect(await modeOf(target)).toBe(0o640);
    expect((await lstat(keys)).isSymbolicLink()).toBe(true);
  });

  it('refuses (409) an authorized_keys that is a FIFO without waiting for a writer', async () => {
    const { device, ssh, keys } = await host('fifo');
    await mkdir(ssh, { mode: 0o700 });
    execFileSync('mkfifo', [keys]);
    expect(await callFunction(sshKeys, device, ALICE)).toMatchObject({ status: 409, body: { detail: `${keys} of user alice is not a file` } });
    expect(await callFunction(sshKeysAdd, device, ALICE, { key: sshKey('ed25519') })).toMatchObject({ status: 409 });
    expect((await lstat(keys)).isFIFO()).toBe(true);
  });
});

describe('hostAccounts', () => {
  it('refuses (409) an account whose home is not an absolute path, as a rejected promise, writing nothing', async () => {
    const accounts = hostAccounts({ passwdFile: path.join(await temp.folder('relative'), 'passwd') });
    const account = { name: 'rel', uid: OWNER.uid, gid: OWNER.gid, home: 'relative/home' };
    await expect(accounts.updateAuthorizedKeys(account, () => 'ssh-ed25519 AAAA\n')).rejects.toMatchObject({ status: 409 });
    await expect(accounts.authorizedKeys(account)).rejects.toMatchObject({ status: 409 });
    await expect(stat('relative')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('SSH keys after a crash of the runtime', () => {
  const HEX = '0123456789ab';

  it('removes at start what writes of authorized_keys cut short left in each ~/.ssh, and nothing else, following no link', async () => {
    const root = await temp.folder('interrupted-start');
    const homes = { alice: path.join(root, 'alice'), bob: path.join(root, 'bob'), mallory: path.join(root, 'mallory') };
    for (const home of Object.values(homes)) await mkdir(home);
    const elsewhere = path.join(root, 'elsewhere');
    await mkdir(elsewhere);
    await mkdir(path.join(homes.alice, '.ssh'));
    await mkdir(path.join(homes.bob, '.ssh'));
    await symlink(elsewhere, path.join(homes.mallory, '.ssh'));
    for (const dir of [path.join(homes.alice, '.ssh'), path.join(homes.bob, '.ssh'), elsewhere]) {
      for (const name of [`.authorized_keys.${HEX}.tmp`, `.known_hosts.${HEX}.tmp`, '.authorized_keys.tmp', 'authorized_keys'])
        await writeFile(path.join(dir, name), 'kept unless a copy cut short\n');
    }
    const passwd = Object.entries(homes).map(([name, home], n) => `${name}:x:${4300 + n}:${4300 + n}::${home}:/bin/sh`);
    await writeFile(path.join(root, 'passwd'), `${passwd.join('\n')}\n`);

    await hostAccounts({ passwdFile: path.join(root, 'passwd') }).removeInterruptedWrites();
    for (const home of [homes.alice, homes.bob])
      expect((await readdir(path.join(home, '.ssh'))).sort()).toEqual(['.authorized_keys.tmp', `.known_hosts.${HEX}.tmp`, 'authorized_keys']);
    expect(await readdir(elsewhere)).toContain(`.authorized_keys.${HEX}.tmp`);
  });

  it('removes them before the first write of keys, when nothing did at start', async () => {
    const { device, ssh, keys } = await host('interrupted-write');
    await mkdir(ssh);
    await writeFile(path.join(ssh, `.authorized_keys.${HEX}.tmp`), `${sshKey('rsa-2048')}\n`);
    expect(await callFunction(sshKeysAdd, device, ALICE, { key: sshKey('ed25519') })).toEqual({ status: 200, body: [sshKey('ed25519')] });
    expect(await readdir(ssh)).toEqual(['authorized_keys']);
    expect(await readFile(keys, 'utf8')).toBe(`${sshKey('ed25519')}\n`);
  });
});

describe('GET /api/v1/config/sshKeys/:user on the host', () => {
  it('responds with the key lines of the file, and [] without ~/.ssh or without a home folder', async () => {
    const { device, ssh, keys } = await host('read');
    expect(await callFunction(sshKeys, device, ALICE)).toEqual({ status: 200, body: [] });
    expect(await callFunction(sshKeys, device, { user: 'ghost' })).toEqual({ status: 200, body: [] });
    await mkdir(ssh);
    await writeFile(keys, `# mine\n${sshKey('ed25519')}\nno-pty ${sshKey('rsa-2048')}\n`);
    expect(await callFunction(sshKeys, device, ALICE)).toEqual({ status: 200, body: [sshKey('ed25519'), `no-pty ${sshKey('rsa-2048')}`] });
  });

  it('responds with 404 for every user when the passwd file does not exist', async () => {
    const device = { ...memoryDevice(), accounts: hostAccounts({ passwdFile: path.join(await temp.folder('no-passwd'), 'passwd') }) };
    expect(await callFunction(sshKeys, device, { user: 'root' })).toMatchObject({ status: 404 });
  });
});
