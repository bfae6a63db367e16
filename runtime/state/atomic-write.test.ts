import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/temp-dir.ts';
import { writeFileAtomic } from './atomic-write.ts';

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
