import { mkdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { rootedFiles } from '../../runtime/device/files.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { memoize, scenarioFiles } from './files.ts';

const temp = useTempDir('chutebox-scenario-files-');
const DEFAULT = fileURLToPath(new URL('../../fixtures/scenarios/default/', import.meta.url));

/** A folder with the given files (relative path → contents). */
async function folder(name: string, files: Record<string, string>): Promise<string> {
  const dir = await temp.folder(name);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

describe('memoize', () => {
  it('computes each key once, also for a call made while the first still runs', async () => {
    const computed: string[] = [];
    const double = memoize(async (key) => (computed.push(key), key + key));
    const [a, b] = await Promise.all([double('x'), double('x')]);
    expect([a, b, await double('x'), await double('y')]).toEqual(['xx', 'xx', 'xx', 'yy']);
    expect(computed).toEqual(['x', 'y']);
  });

  it('computes again after a failure: a failure is not kept', async () => {
    let calls = 0;
    const flaky = memoize(async () => {
      calls += 1;
      if (calls === 1) throw new Error('busy');
      return 'ok';
    });
    await expect(flaky('k')).rejects.toThrow('busy');
    expect(await flaky('k')).toBe('ok');
    expect(await flaky('k')).toBe('ok');
    expect(calls).toBe(2);
  });

  it('keeps at most `max` answers: past it, a new key is computed on every call', async () => {
    let calls = 0;
    const count = memoize(async (key) => ((calls += 1), key), 2);
    for (const key of ['a', 'b', 'c', 'c', 'a']) await count(key);
    expect(calls).toBe(4);
  });
});

describe('the files of a scenario', () => {
  it('answers as rootedFiles does: files, folders, links inside, and paths that leave the folder', async () => {
    const outside = await folder('outside', { secret: 'not for the emulator\n' });
    const dir = await folder('answers', { 'proc/uptime': '12.50 40.00\n', 'etc/hostname': 'lab\n', 'usr/lib/os-release': 'NAME=lab\n' });
    await symlink('../usr/lib/os-release', path.join(dir, 'etc', 'os-release'));
    await symlink(path.relative(path.join(dir, 'etc'), path.join(outside, 'secret')), path.join(dir, 'etc', 'escape'));
    const paths = [
      '/proc/uptime',
      '/proc/loadavg',
      '/etc',
      '/etc/os-release',
      '/etc/escape',
      '/../outside/secret',
      '/proc/../etc/hostname',
      'etc/hostname',
      '/nope/',
    ];
    for (const [root, sample] of [
      [dir, paths],
      [DEFAULT, ['/sys/class/ieee80211', '/sys/class/ieee80211/phy0/device', '/sys/class/dmi/id/sys_vendor', '/sys/class/net/eth0/device/subsystem']],
    ] as const) {
      const [memory, disk] = [scenarioFiles(root), rootedFiles(root)];
      for (const file of sample) {
        expect(await memory.readFile(file), file).toBe(await disk.readFile(file));
        expect(await memory.readDir(file), file).toEqual(await disk.readDir(file));
        expect(await memory.realPath(file), file).toBe(await disk.realPath(file));
      }
    }
  });

  it('reads each path once: a file, listing or link changed after its first read answers as before (restart to see an edit)', async () => {
    const dir = await folder('once', {
      'proc/cpuinfo': 'model name\t: recorded\n',
      'etc/hostname': 'lab\n',
      'usr/lib/os-release': 'NAME=lab\n',
      'usr/lib/other': 'NAME=other\n',
    });
    await symlink('../usr/lib/os-release', path.join(dir, 'etc', 'os-release'));
    const files = scenarioFiles(dir);
    const first = [
      await files.readFile('/proc/cpuinfo'),
      await files.readDir('/etc'),
      await files.realPath('/etc/os-release'),
      await files.readFile('/proc/loadavg'),
    ];

    await writeFile(path.join(dir, 'proc/cpuinfo'), 'model name\t: edited\n');
    await unlink(path.join(dir, 'etc/hostname'));
    await unlink(path.join(dir, 'etc/os-release'));
    await symlink('../usr/lib/other', path.join(dir, 'etc', 'os-release'));
    await writeFile(path.join(dir, 'proc/loadavg'), '0.00 0.00 0.00 1/1 1\n');

    expect([
      await files.readFile('/proc/cpuinfo'),
      await files.readDir('/etc'),
      await files.realPath('/etc/os-release'),
      await files.readFile('/proc/loadavg'),
    ]).toEqual(first);
    expect(first).toEqual(['model name\t: recorded\n', ['hostname', 'os-release'], '/usr/lib/os-release', null]);
    // A new start reads the folder as it is now.
    expect(await scenarioFiles(dir).readFile('/proc/cpuinfo')).toBe('model name\t: edited\n');
  });

  it('answers from memory once read, even when the folder is gone', async () => {
    const dir = await folder('gone', { 'proc/meminfo': 'MemTotal: 1 kB\n' });
    const files = scenarioFiles(dir);
    expect(await files.readFile('/proc/meminfo')).toBe('MemTotal: 1 kB\n');
    await rm(dir, { recursive: true });
    expect(await files.readFile('/proc/meminfo')).toBe('MemTotal: 1 kB\n');
  });

  it('answers the same frozen folder listing each time, which no caller can change', async () => {
    const files = scenarioFiles(DEFAULT);
    const list = await files.readDir('/sys/class/ieee80211');
    expect(list).toEqual(['phy0', 'phy1']);
    expect(await files.readDir('/sys/class/ieee80211')).toBe(list);
    expect(() => (list as string[]).push('phy9')).toThrow(TypeError);
  });
});
