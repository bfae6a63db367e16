/**
 * The raw sources of a device: file contents, directory listings, resolved links, `statfs`, `uname`, the
 * programs it has, the clock, the container engine's JSON, the stored chutes and the settings. Parsers in
 * `functions/parsers/` interpret them, so the device and the emulator run the same parsing code.
 */
export interface DeviceSources {
  /** Contents of a file, or null when it is missing or unreadable. */
  readFile(path: string): Promise<string | null>;
  /**
   * Entry names of a directory, sorted; an empty list when it is missing. The answer may be shared
   * (the emulator answers the same list while the folder is unchanged): never change it.
   */
  readDir(path: string): Promise<readonly string[]>;
  /** The path with every symbolic link resolved (like `realpath`), or null when it does not exist. */
  realPath(path: string): Promise<string | null>;
  /** `statfs(2)` of a mount point, or null when it cannot be read. */
  statfs(path: string): Promise<FsStats | null>;
  /** `uname(2)`. */
  uname(): Promise<Uname>;
  /**
   * The programs the device has, of those the runtime knows (`KNOWN_PROGRAMS` of
   * functions/info/features.ts: `ip`, `iw`, `hostapd`, …), in that list's order. The host finds them on
   * its PATH once, on the first call, and answers the same list for its life: a program installed
   * later shows after a restart. The answer may be shared: never change it.
   *
   * @example
   * await device.programs() // ['ip', 'iw', 'hostapd', 'hostapd_cli', 'dnsmasq', 'nsenter', 'nft']
   */
  programs(): Promise<readonly string[]>;
  /** The device's clock, in milliseconds since the epoch. */
  now(): number;
  /**
   * The raw entries of the Docker Engine API's `GET /containers/json?all=1` for the containers that
   * carry the chute label (`CHUTE_LABEL`), running or not; null when the device has no reachable engine.
   * Cheap: it reads no stats. The answer may be shared with concurrent callers: read it, never change it.
   */
  containers(): Promise<Record<string, unknown>[] | null>;
  /**
   * The raw body of `GET /containers/<id>/stats?stream=false` for a container `Id` (or name) from
   * `containers()`, or null when it is unavailable (no engine, no such container, not running, no
   * answer in time). On a real engine this takes about a second: it samples the container twice.
   * Like `containers()`, the answer may be shared: never change it.
   *
   * @example
   * await device.containerStats('5f1c…ff') // { read: '…', cpu_stats: { … }, memory_stats: { … }, … }
   */
  containerStats(id: string): Promise<Record<string, unknown> | null>;
  /** Names of the chutes installed on the device, sorted. */
  chuteNames(): Promise<string[]>;
  /**
   * One installed chute as the device stores it, or null when there is none by that name. The name
   * must already be validated (`CHUTE_NAME`): it becomes a file name. The answer is read-only (the
   * emulator answers the same frozen chute to every caller).
   */
  chute(name: string): Promise<StoredChute | null>;
  /** Every setting, by lower-case name, as loaded once at start (read-only). */
  settings(): Promise<Settings>;
}

/**
 * A chute's stored documents, decoded (YAML in a scenario, JSON in the runtime's state dir) but not
 * validated: handlers read what they need and tolerate the rest.
 */
export interface StoredChute {
  name: string;
  /** `chute.yaml`: name, version, state, environment, allocation, resources. */
  record: Record<string, unknown>;
  /** `service.yaml`: the chute configuration as its developer wrote it (environment, host_config, net, web). */
  config: Record<string, unknown>;
  /**
   * `cache.yaml`: the runtime's key-value store for the chute ({} when there is none). The host
   * resources behind each network are under `networks.<network>`: `{ hostInterface, hostapdControl,
   * leaseFile }` (see `NetworkTarget`).
   */
  cache: Record<string, unknown>;
}

/** Settings values: what a settings file or an environment variable can give. */
export type Settings = Record<string, string | number | boolean | string[] | null>;

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
