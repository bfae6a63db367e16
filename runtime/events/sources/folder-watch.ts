import { type FSWatcher, statSync, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import { oneAtATime } from './source.ts';

/** How often a folder that cannot be watched (it does not exist yet, or was removed) is looked for again. */
export const FOLDER_RETRY_MS = 2000;

/**
 * Calls `onChange` after anything changes in `dir` (an inotify watch, `fs.watch`), at most once per
 * `debounceMs`, and once whenever the watch (re)starts, for what changed while nothing watched (at
 * first too, when the folder does not exist). A folder that does not exist is looked for every
 * `FOLDER_RETRY_MS`; one that was removed or replaced (a factory reset empties the state dir) is
 * watched anew.
 *
 * @example
 * const watching = watchFolder('/var/lib/chutebox/networks/dnsmasq', () => rescan.run(), 200);
 * watching.close();
 */
export function watchFolder(dir: string, onChange: () => void, debounceMs: number, retryMs = FOLDER_RETRY_MS): { close(): void } {
  let watcher: FSWatcher | undefined;
  /** The inode of the folder watched: another one at the same path is watched anew. */
  let inode: number | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  let first = true;

  const changed = () => {
    if (closed || debounce !== undefined) return;
    debounce = setTimeout(() => void settle(), debounceMs);
  };

  async function settle(): Promise<void> {
    debounce = undefined;
    const now = await stat(dir).then(
      (found) => found.ino,
      () => undefined,
    );
    if (closed) return;
    if (now !== inode) start();
    onChange();
  }

  function start(): void {
    watcher?.close();
    watcher = undefined;
    clearTimeout(retry);
    retry = undefined;
    if (closed) return;
    try {
      watcher = watch(dir, { persistent: false }, changed);
      // The watch broke (the folder went): watch it again, or look for it until it is back.
      watcher.on('error', start);
      inode = statSync(dir).ino;
    } catch {
      watcher?.close();
      watcher = undefined;
      inode = undefined;
      retry = setTimeout(start, retryMs);
      if (first) changed();
      first = false;
      return;
    }
    first = false;
    changed();
  }
  start();

  return {
    close() {
      closed = true;
      clearTimeout(debounce);
      clearTimeout(retry);
      watcher?.close();
    },
  };
}

/** Looks that run after each change in a folder (`looksOnChange`). */
export interface FolderLooks {
  /** Settles after the first look (or at `stop()`, should none have run). */
  ready: Promise<void>;
  /** Asks for a look now (after the one that runs, if one does). */
  again(): void;
  /** Asks for a look in `ms` milliseconds, in place of the one asked for before this way; null: none. */
  againIn(ms: number | null): void;
  /** Ends the watch and waits for the look that runs; no look starts after. */
  stop(): Promise<void>;
}

/**
 * Runs `look` once at first and again after each change in `dir` (`watchFolder`, debounced) or call
 * of `again()` (or at the time `againIn` asks for), one at a time (`oneAtATime`); `look` is told
 * whether it is the first. A look that throws goes to `onError`, and the next runs all the same.
 *
 * @example
 * const looks = looksOnChange('/var/lib/chutebox/networks/dnsmasq', 200, async (first) => { … }, console.error);
 * await looks.ready;
 * await looks.stop();
 */
export function looksOnChange(dir: string, debounceMs: number, look: (first: boolean) => Promise<void>, onError: (error: unknown) => void): FolderLooks {
  let first = true;
  let stopped = false;
  let looked!: () => void;
  let timer: NodeJS.Timeout | undefined;
  const ready = new Promise<void>((resolve) => (looked = resolve));
  const runs = oneAtATime(async () => {
    try {
      if (!stopped) await look(first);
    } finally {
      first = false;
      looked();
    }
  }, onError);
  const watching = watchFolder(dir, runs.run, debounceMs);
  return {
    ready,
    again: runs.run,
    againIn(ms) {
      clearTimeout(timer);
      if (ms !== null && !stopped) timer = setTimeout(runs.run, ms);
    },
    async stop() {
      stopped = true;
      looked();
      watching.close();
      clearTimeout(timer);
      await runs.idle();
      clearTimeout(timer);
    },
  };
}
