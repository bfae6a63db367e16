import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A file's decoded contents, read once and then only after its folder changed (`watchedPath`): a
 * caller costs no read and no stat while nothing changes, and a change made by another process
 * (`chutebox passwd`) applies from the next request on. The value itself once it is known, else its
 * promise (see `watchedPath`).
 *
 * @param decode turns the bytes, or null when the file does not exist, into the value; what it
 *   throws is thrown to the caller, and nothing is kept.
 * @example
 * const users = watchedFile('/var/lib/chutebox/auth/passwd.json', (bytes) => (bytes === null ? {} : JSON.parse(bytes.toString('utf8')).users));
 * await users(); // read from disk
 * await users(); // the same value, nothing read
 */
export function watchedFile<T>(file: string, decode: (bytes: Buffer | null) => T): () => T | Promise<T> {
  return watchedPath(file, (name) => readOrNull(name).then(decode));
}

/**
 * What `look` answers of a path, asked once and then only after the path's folder changed: an
 * inotify watch on the folder (`fs.watch`) drops the answer at the first event, whatever it is (the
 * file written, renamed over, created, removed, or the folder itself removed). The kernel queues the
 * event before the change's system call returns, and the event loop takes it before a request that
 * arrives later. Where the folder cannot be watched (it does not exist), every call asks `look`. A
 * rejected answer is not kept. Once the kept answer has settled, it is given as the value itself,
 * not a promise: a caller on every request (the auth policy) decides at once.
 *
 * @example
 * const engineListening = watchedPath('/var/run/docker.sock', isUnixSocket);
 * await engineListening(); // one stat; then none until something in /var/run changes
 */
export function watchedPath<T>(file: string, look: (file: string) => Promise<T>): () => T | Promise<T> {
  let kept: { value: T } | Promise<T> | undefined;
  let watcher: FSWatcher | undefined;
  const forget = () => {
    kept = undefined;
    watcher?.close();
    watcher = undefined;
  };
  return () => {
    if (kept !== undefined) return kept instanceof Promise ? kept : kept.value;
    // Watch first, then look: a change during the look is an event that drops what was seen.
    try {
      watcher = watch(path.dirname(file), { persistent: false }, forget);
      watcher.on('error', forget);
    } catch {
      watcher = undefined;
    }
    const looking = look(file);
    if (watcher !== undefined) {
      kept = looking;
      looking.then(
        (value) => {
          if (kept === looking) kept = { value };
        },
        () => {
          if (kept === looking) forget();
        },
      );
    }
    return looking;
  };
}

async function readOrNull(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
