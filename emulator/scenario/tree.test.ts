import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { rootedFiles } from '../../runtime/device/files.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { readScenarioTree } from './compiled.ts';
import { checkCompiledScenario, normalizePosix, treeFiles, type ScenarioTree } from './tree.ts';

const temp = useTempDir('chutebox-scenario-tree-');
const BUILT_IN = fileURLToPath(new URL('../../fixtures/scenarios/', import.meta.url));

/** Every device path of a tree, and each with a trailing slash, `/./` and `//` in it: what a caller may ask. */
function pathsOf(tree: ScenarioTree): string[] {
  return Object.keys(tree).flatMap((at) => [at, `${at}/`, at.replace(/\/([^/]*)$/, '/./$1'), at.replace(/\/([^/]*)$/, '//$1'), `${at}/x`]);
}

async function answersAsOnDisk(dir: string, extra: string[] = []): Promise<void> {
  const tree = await readScenarioTree(dir);
  const [memory, disk] = [treeFiles(tree), rootedFiles(dir)];
  for (const file of [...pathsOf(tree), ...extra]) {
    expect(await memory.readFile(file), `readFile ${file}`).toBe(await disk.readFile(file));
    expect(await memory.readDir(file), `readDir ${file}`).toEqual(await disk.readDir(file));
    expect(await memory.realPath(file), `realPath ${file}`).toBe(await disk.realPath(file));
  }
}

describe('treeFiles: a scenario folder served from one JSON value', () => {
  it.each(['default', 'gl-ar150'])('answers every path of the built-in %s scenario as rootedFiles does on its folder', async (name) => {
    await answersAsOnDisk(path.join(BUILT_IN, name), ['/', '/nope', '/proc/../etc/passwd', 'proc/cpuinfo', '/\0']);
  });

  it('answers links inside, links that leave, loops, `..` and paths through a file as rootedFiles does', async () => {
    const outside = await temp.folder('outside');
    await writeFile(path.join(outside, 'secret'), 'not for the emulator\n');
    const dir = await temp.folder('links');
    for (const [file, text] of Object.entries({ 'proc/uptime': '12.50 40.00\n', 'usr/lib/os-release': 'NAME=lab\n', 'empty/.keep': '' })) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    await mkdir(path.join(dir, 'etc'));
    await symlink('../usr/lib/os-release', path.join(dir, 'etc', 'os-release'));
    await symlink('../usr/lib', path.join(dir, 'etc', 'lib'));
    await symlink(path.relative(path.join(dir, 'etc'), path.join(outside, 'secret')), path.join(dir, 'etc', 'escape'));
    await symlink(path.join(dir, 'proc', 'uptime'), path.join(dir, 'etc', 'absolute'));
    await symlink('loop-b', path.join(dir, 'etc', 'loop-a'));
    await symlink('loop-a', path.join(dir, 'etc', 'loop-b'));
    await symlink('nowhere', path.join(dir, 'etc', 'dangling'));
    await answersAsOnDisk(dir, ['/etc/lib/os-release', '/etc/lib/../lib/os-release', '/../outside/secret', '/etc/os-release/', '/proc/uptime/..']);
  });

  it('answers a file, a real path and a folder listing (frozen) as the same answer on every read', async () => {
    const files = treeFiles(await readScenarioTree(path.join(BUILT_IN, 'default')));
    // The same answer: a check that reads them again to reuse an answer compares them at once.
    expect(files.readFile('/proc/cpuinfo')).toBe(files.readFile('/proc/cpuinfo'));
    expect(files.realPath('/sys/class/net/br-lan')).toBe(files.realPath('/sys/class/net/br-lan'));
    expect(files.readDir('/proc')).toBe(files.readDir('/proc'));
    const listing = await files.readDir('/proc');
    expect(listing).toContain('cpuinfo');
    expect(Object.isFrozen(listing)).toBe(true);
  });

  it('checks a compiled scenario’s layout, naming what is wrong', () => {
    expect(() => checkCompiledScenario('fixtures/scenarios/default')).toThrow('a compiled scenario is not an object');
    expect(() => checkCompiledScenario({ format: 'chutebox-scenario/0' })).toThrow(/has format "chutebox-scenario\/0"/);
    expect(() => checkCompiledScenario({ format: 'chutebox-scenario/1', name: 'x', files: {} })).toThrow(/has no files/);
  });
});

describe('normalizePosix', () => {
  it('normalizes as path.posix.normalize does', () => {
    for (const file of ['/boot//x/../', '/', '//', '/..', '/a/./b/.', 'a/../..', '', '.', './', 'a//b/', '/a/b/../../..', '../a', 'a/..']) {
      expect(normalizePosix(file), file).toBe(path.posix.normalize(file));
    }
  });
});
