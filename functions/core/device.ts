/**
 * The only way a handler reaches the device it runs on.
 *
 * Every method hands back *raw* data (file contents, directory listings, link targets, engine JSON),
 * never interpreted values: the parsers in `functions/parsers/` interpret them. The runtime implements
 * this on the real host (`runtime/host-device.ts`), the emulator over a recorded scenario
 * (`emulator/scenario-device.ts`), so both run exactly the same parsing code.
 *
 * Paths are absolute device paths such as `/proc/cpuinfo`; a scenario stores the same file at
 * `proc/cpuinfo` under its directory.
 *
 * @example
 * const text = await device.readFile('/proc/meminfo'); // null when the device has no such file
 */
export interface Device {
  /** Contents of a file, or null when it is missing or unreadable. */
  readFile(path: string): Promise<string | null>;
  /** Entry names of a directory, sorted; an empty list when it is missing. */
  readDir(path: string): Promise<string[]>;
  /** The path with every symbolic link resolved (like `realpath`), or null when it does not exist. */
  realPath(path: string): Promise<string | null>;
  /** `statfs(2)` of a mount point, or null when it cannot be read. */
  statfs(path: string): Promise<FsStats | null>;
  /** `uname(2)`. */
  uname(): Promise<Uname>;
  /** The device's clock, in milliseconds since the epoch. */
  now(): number;
  /**
   * The raw entries of the Docker Engine API's `GET /containers/json?all=1` for the containers that
   * carry the chute label (`CHUTE_LABEL`), running or not; null when the device has no reachable engine.
   * Cheap: it reads no stats.
   */
  containers(): Promise<Record<string, unknown>[] | null>;
  /**
   * The raw body of `GET /containers/<id>/stats?stream=false` for a container `Id` (or name) from
   * `containers()`, or null when it is unavailable (no engine, no such container, not running, no
   * answer in time). On a real engine this takes about a second: it samples the container twice.
   *
   * @example
   * await device.containerStats('5f1c…ff') // { read: '…', cpu_stats: { … }, memory_stats: { … }, … }
   */
  containerStats(id: string): Promise<Record<string, unknown> | null>;
}

/** `statfs(2)` fields, as Node's `fs.statfs` returns them (sizes in blocks of `bsize` bytes). */
export interface FsStats {
  type: number;
  bsize: number;
  blocks: number;
  bfree: number;
  bavail: number;
  files: number;
  ffree: number;
}

/** The fields of `uname(2)` that handlers use. */
export interface Uname {
  sysname: string;
  release: string;
  version: string;
  machine: string;
}

/** The label that marks a container as a chute; its value is the chute name. */
export const CHUTE_LABEL = 'io.chutebox.chute';

/**
 * A container reference that is safe in an engine URL path or a file name: a Docker id (64 lower-case
 * hex digits, or a prefix of them) or a container name (`[a-zA-Z0-9][a-zA-Z0-9_.-]*`). It can never
 * hold a slash or be `..`.
 *
 * @example
 * CONTAINER_REF.test('chute-hello-world') // true
 * CONTAINER_REF.test('../../info')        // false
 */
export const CONTAINER_REF = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
