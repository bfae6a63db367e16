import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { removeInterruptedWrites, writeFileAtomic } from './atomic-write.ts';

const { folder } = useTempDir('chutebox-atomic-');

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe('writeFileAtomic', () => {
  it('writes the whole contents with the given mode and leaves no temporary file behind', async () => {
    const dir = await folder('new');
    const data = Buffer.alloc(64 * 1024, 'x');
    await writeFileAtomic(path.join(dir, 'state.bin'), data, 0o600);
    expect(await readFile(path.join(dir, 'state.bin'))).toEqual(data);
    expect(await modeOf(path.join(dir, 'state.bin'))).toBe(0o600);
    expect(await readdir(dir)).toEqual(['state.bin']);
  });

  it('replaces an existing file entirely, with the new mode', async () => {
    const dir = await folder('replace');
    const file = path.join(dir, 'config.json');
    await writeFile(file, 'a much longer old contents that must not survive\n', { mode: 0o644 });
    await writeFileAtomic(file, '{}\n', 0o640);
    expect(await readFile(file, 'utf8')).toBe('{}\n');
    expect(await modeOf(file)).toBe(0o640);
    expect(await readdir(dir)).toEqual(['config.json']);
  });

  it('leaves neither the file nor a temporary file when the write fails', async () => {
    const dir = await folder('fails');
    // A non-empty folder in the way: the rename at the end fails.
    await mkdir(path.join(dir, 'taken'));
    await writeFile(path.join(dir, 'taken', 'inside'), 'kept\n');
    await expect(writeFileAtomic(path.join(dir, 'taken'), 'new\n', 0o600)).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['taken']);
    expect(await readFile(path.join(dir, 'taken', 'inside'), 'utf8')).toBe('kept\n');

    await expect(writeFileAtomic(path.join(dir, 'missing', 'file'), 'new\n', 0o600)).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['taken']);
  });
});

describe('removeInterruptedWrites', () => {
  it('removes the temporary files that writes of the given files left when cut short, and nothing else', async () => {
    const dir = await folder('interrupted');
    const hex = '0123456789ab';
    for (const name of [
      'a.json',
      `.a.json.${hex}.tmp`,
      `.a.json.${'f'.repeat(12)}.tmp`,
      `.b.json.${hex}.tmp`,
      '.a.json.tmp',
      `.a.json.${hex}.tmp.bak`,
      `.a.json.${hex.toUpperCase()}.tmp`,
    ]) {
      await writeFile(path.join(dir, name), 'psk: a copy of a secret\n');
    }
    await mkdir(path.join(dir, `.a.json.${'1'.repeat(12)}.tmp`));
    await symlink('a.json', path.join(dir, `.a.json.${'2'.repeat(12)}.tmp`));

    expect((await removeInterruptedWrites(dir, ['a.json'])).sort()).toEqual([`.a.json.${hex}.tmp`, `.a.json.${'f'.repeat(12)}.tmp`]);
    expect((await readdir(dir)).sort()).toEqual(
      [
        `.a.json.${'1'.repeat(12)}.tmp`,
        `.a.json.${'2'.repeat(12)}.tmp`,
        '.a.json.tmp',
        `.a.json.${hex.toUpperCase()}.tmp`,
        `.a.json.${hex}.tmp.bak`,
        `.b.json.${hex}.tmp`,
        'a.json',
      ].sort(),
    );
    expect(await removeInterruptedWrites(dir, (name) => name.startsWith('b.'))).toEqual([`.b.json.${hex}.tmp`]);
    expect(await removeInterruptedWrites(path.join(dir, 'missing'), ['a.json'])).toEqual([]);
  });
});
