import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import path from 'node:path';

/** More about the file `writeFileAtomic` writes. */
export interface AtomicWriteOptions {
  /** Who owns the new file (`fchown` of the temporary file, before the rename); the writer's own ids when not given. */
  owner?: { uid: number; gid: number };
}

/** The temporary file `writeFileAtomic` writes for a file named `name`: `.<name>.<12 hex digits>.tmp`, hidden, beside it. */
const TEMP_NAME = /^\.(.+)\.[0-9a-f]{12}\.tmp$/;

/** A new temporary file name for `file`, in its folder (`TEMP_NAME`). */
function tempFile(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Replaces a file atomically: writes a temporary file in the same folder (`.<name>.<12 hex>.tmp`)
 * with `mode` (and `owner`), flushes it to disk, renames it over `file`, then flushes the folder. A
 * reader sees the old or the new contents, never a mix, even after a power cut. A failed write removes
 * its temporary file; one that a crash cut short leaves it, for `removeInterruptedWrites` at the
 * writer's next start.
 *
 * @example
 * await writeFileAtomic('/var/lib/chutebox/auth/passwd.json', '{"users":{}}\n', 0o600);
 * await writeFileAtomic('/home/paradrop/.ssh/authorized_keys', keys, 0o600, { owner: { uid: 1000, gid: 1000 } });
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, mode: number, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = path.dirname(file);
  const temp = tempFile(file);
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

/**
 * Removes from `dir` the temporary files of `writeFileAtomic` writes that a crash cut short: regular
 * files named `.<name>.<12 hex>.tmp` whose `name` is one of the files the caller writes (`owns`: a
 * list of names or a test). Nothing else is touched, and a missing `dir` is fine. Call it only where
 * no write of those files is under way, which is why each writer calls it at its own start, for its
 * own files. Answers the names it removed.
 *
 * @example
 * await removeInterruptedWrites('/var/lib/chutebox/changes', (name) => /^[1-9][0-9]*\.json$/.test(name));
 * // ['.7.json.0f3a9c21b4d8.tmp']: left by a kill during the write of 7.json
 */
export async function removeInterruptedWrites(dir: string, owns: readonly string[] | ((name: string) => boolean)): Promise<string[]> {
  const ours = typeof owns === 'function' ? owns : (name: string) => owns.includes(name);
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const removed: string[] = [];
  for (const entry of entries) {
    const target = TEMP_NAME.exec(entry.name)?.[1];
    if (target === undefined || !entry.isFile() || !ours(target)) continue;
    await rm(path.join(dir, entry.name), { force: true });
    removed.push(entry.name);
  }
  if (removed.length > 0) await syncDir(dir);
  return removed;
}

/**
 * `removeInterruptedWrites(dir, owns)` on the first call only, for a writer that starts on first use:
 * it awaits this before each of its reads and writes. It never rejects: a failure is logged.
 *
 * @example
 * const ready = removeInterruptedWritesOnce('/var/lib/chutebox', ['provision.json']);
 * async function load() { await ready(); … }
 */
export function removeInterruptedWritesOnce(dir: string, owns: readonly string[] | ((name: string) => boolean)): () => Promise<void> {
  let removing: Promise<void> | undefined;
  return () =>
    (removing ??= removeInterruptedWrites(dir, owns).then(
      () => undefined,
      (error: unknown) => console.error(`cannot remove the temporary files of interrupted writes in ${dir}:`, error),
    ));
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
