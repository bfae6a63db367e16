import type { Device, FsStats, Uname } from '../../functions/core/device.ts';

/** Everything a Device was asked and what it answered, keyed by device path. */
export interface Recording {
  /** Files that exist: path → contents. A file read as missing (null) is not kept. */
  files: Map<string, string>;
  /** Directories listed: path → entry names (empty when missing). */
  dirs: Map<string, string[]>;
  /** `realPath` questions: path → the answer (null when the path does not exist). */
  links: Map<string, string | null>;
  /** `statfs` questions: mount point → the answer (null when it cannot be read). */
  statfs: Map<string, FsStats | null>;
  /** The `uname` answer, once asked. */
  uname: Uname | undefined;
  /** The `containers` answer, once asked (null: the device has no engine). */
  containers: Record<string, unknown>[] | null | undefined;
  /** `containerStats` questions: container id → the answer (null when unavailable). */
  stats: Map<string, Record<string, unknown> | null>;
}

/**
 * Wraps a Device so that every question and its answer is logged in a `Recording`. Each question is
 * put to the inner device once: asking again answers the first answer, so handlers that run through
 * this device see one consistent snapshot, and that snapshot is exactly what the recording holds.
 * `now()` is passed through (a scenario uses the real clock).
 *
 * @example
 * const { device, recording } = recordingDevice(createHostDevice());
 * await hardware(input, device);
 * recording.files.get('/proc/meminfo') // 'MemTotal:  16318480 kB\n…'
 */
export function recordingDevice(inner: Device): { device: Device; recording: Recording } {
  const recording: Recording = { files: new Map(), dirs: new Map(), links: new Map(), statfs: new Map(), uname: undefined, containers: undefined, stats: new Map() };
  const asked = new Map<string, Promise<unknown>>();

  /** Asks the inner device once per key; `keep` logs the answer. */
  function once<T>(key: string, ask: () => Promise<T>, keep: (answer: T) => void): Promise<T> {
    let answer = asked.get(key) as Promise<T> | undefined;
    if (answer === undefined) {
      answer = ask().then((value) => {
        keep(value);
        return value;
      });
      asked.set(key, answer);
    }
    return answer.then(copy);
  }

  const device: Device = {
    readFile: (path) =>
      once(`file:${path}`, () => inner.readFile(path), (text) => {
        if (text !== null) recording.files.set(path, text);
      }),
    readDir: (path) => once(`dir:${path}`, () => inner.readDir(path), (names) => recording.dirs.set(path, [...names])),
    realPath: (path) => once(`link:${path}`, () => inner.realPath(path), (target) => recording.links.set(path, target)),
    statfs: (path) => once(`statfs:${path}`, () => inner.statfs(path), (stats) => recording.statfs.set(path, stats === null ? null : { ...stats })),
    uname: () => once('uname', () => inner.uname(), (uname) => (recording.uname = { ...uname })),
    now: () => inner.now(),
    containers: () => once('containers', () => inner.containers(), (list) => (recording.containers = copy(list))),
    containerStats: (id) => once(`stats:${id}`, () => inner.containerStats(id), (stats) => recording.stats.set(id, copy(stats))),
  };
  return { device, recording };
}

/** Handlers get their own copy, so none can change what another sees or what is recorded. */
function copy<T>(value: T): T {
  return value !== null && typeof value === 'object' ? structuredClone(value) : value;
}
