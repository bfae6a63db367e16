import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { readIfExists } from './read-if-exists.ts';

const temp = useTempDir('chutebox-read-');

describe('readIfExists', () => {
  it('answers the text of a file, and null for one that does not exist', async () => {
    const dir = await temp.folder('files');
    await writeFile(path.join(dir, 'there'), 'contents\n');
    expect(await readIfExists(path.join(dir, 'there'))).toBe('contents\n');
    expect(await readIfExists(path.join(dir, 'missing'))).toBeNull();
  });

  it('throws for what cannot be read otherwise, such as a folder', async () => {
    const dir = await temp.folder('folder');
    await expect(readIfExists(dir)).rejects.toMatchObject({ code: 'EISDIR' });
  });
});
