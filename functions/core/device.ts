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
   * The container engine's view of the containers labelled as chutes, as the Docker Engine API
   * returns them, or null when the device has no reachable engine.
   */
  containers(): Promise<ContainerSample[] | null>;
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

/**
 * One chute container: the raw entry of `GET /containers/json` and, when the container runs, the raw
 * body of `GET /containers/{id}/stats?stream=false`.
 */
export interface ContainerSample {
  container: Record<string, unknown>;
  stats: Record<string, unknown> | null;
}

/** The label that marks a container as a chute; its value is the chute name. */
export const CHUTE_LABEL = 'io.chutebox.chute';
