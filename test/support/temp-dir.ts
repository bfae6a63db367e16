import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * A temp folder for the tests of one file: created before them, removed after them. `folder(name)`
 * makes a fresh sub-folder inside it.
 *
 * @example
 * const temp = useTempDir('chutebox-record-');
 * it('…', async () => { const dir = await temp.folder('scenario'); … });
 */
export function useTempDir(prefix: string): { path(): string; folder(name: string): Promise<string> } {
  let root: string | undefined;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), prefix));
  });
  afterAll(async () => {
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });
  const base = () => {
    if (root === undefined) throw new Error('useTempDir: the folder exists only while the tests run');
    return root;
  };
  return {
    path: base,
    async folder(name) {
      const dir = path.join(base(), name);
      await mkdir(dir);
      return dir;
    },
  };
}

/** Whether a file (or folder, or socket) exists at `file`. */
export function fileExists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
