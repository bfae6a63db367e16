import type { Device } from '../../functions/core/device/index.ts';
import { rootedFiles } from '../../runtime/device/files.ts';

/** How many answers `memoize` keeps by default: far more than a scenario has files and folders. */
const MAX_ANSWERS = 10_000;

/**
 * An async function of a string that computes each key's answer once: the first call computes it,
 * every later call (also one made while the first is still running) shares that answer. A failure is
 * not kept, so the next call for that key computes again. Once `max` answers are kept, a new key is
 * computed on every call: a caller who asks for ever new keys cannot make it grow without bound.
 *
 * @example
 * const read = memoize((file) => readFile(file, 'utf8'));
 * await read('/x'); // read from the disk
 * await read('/x'); // the same text, from memory
 */
export function memoize<T>(compute: (key: string) => Promise<T>, max = MAX_ANSWERS): (key: string) => Promise<T> {
  const answers = new Map<string, Promise<T>>();
  return (key) => {
    const kept = answers.get(key);
    if (kept !== undefined) return kept;
    const answer = compute(key);
    if (answers.size < max) {
      answers.set(key, answer);
      answer.catch(() => {
        if (answers.get(key) === answer) answers.delete(key);
      });
    }
    return answer;
  };
}

/**
 * The raw files of a scenario folder, read once: each device path's `readFile`, `readDir` and
 * `realPath` answer is what `rootedFiles(dir)` answers (so links, `..` and paths that leave the
 * folder behave exactly as on a device), computed the first time it is asked for and served from
 * memory after that. A scenario is a recording: its files are taken not to change while it is served,
 * and an edit shows after a restart. A missing file is remembered as missing, too.
 *
 * @example
 * const files = scenarioFiles('fixtures/scenarios/default');
 * await files.readFile('/proc/cpuinfo'); // read from the folder
 * await files.readFile('/proc/cpuinfo'); // from memory
 */
export function scenarioFiles(dir: string): Pick<Device, 'readFile' | 'readDir' | 'realPath'> {
  const files = rootedFiles(dir);
  return {
    readFile: memoize(files.readFile),
    // One frozen list a folder, the same each time.
    readDir: memoize(async (devicePath) => Object.freeze(await files.readDir(devicePath))),
    realPath: memoize(files.realPath),
  };
}
