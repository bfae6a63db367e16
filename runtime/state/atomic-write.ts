import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** More about the file `writeFileAtomic` writes. */
export interface AtomicWriteOptions {
  /** Who owns the new file (`fchown` of the temporary file, before the rename); the writer's own ids when not given. */
  owner?: { uid: number; gid: number };
}

/**
 * Replaces a file atomically: writes a temporary file in the same folder with `mode` (and `owner`),
 * flushes it to disk, renames it over `file`, then flushes the folder. A reader sees the old or the
 * new contents, never a mix, even after a power cut.
 *
 * @example
 * await writeFileAtomic('/var/lib/chutebox/auth/passwd.json', '{"users":{}}\n', 0o600);
 * await writeFileAtomic('/home/paradrop/.ssh/authorized_keys', keys, 0o600, { owner: { uid: 1000, gid: 1000 } });
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, mode: number, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      if (options.owner !== undefined) await handle.chown(options.owner.uid, options.owner.gid);
      await handle.chmod(mode);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDir(dir);
}

/** Flushes a folder's entries (a rename in it) to disk, where the file system can. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems cannot fsync a folder; the rename is still atomic.
  }
}
