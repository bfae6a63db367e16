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
  /** Names of the chutes installed on the device, sorted. */
  chuteNames(): Promise<string[]>;
  /**
   * One installed chute as the device stores it, or null when there is none by that name. The name
   * must already be validated (`CHUTE_NAME`): it becomes a file name.
   */
  chute(name: string): Promise<StoredChute | null>;
  /**
   * The host side of one chute network: raw tool output and files. Each call may throw an
   * `HttpProblem` 503 (a tool or socket is missing) or 504 (it did not answer in time), naming which.
   */
  network(target: NetworkTarget): NetworkHost;
  /**
   * Queues a change to a chute. It runs in the background, after every earlier change to the same
   * chute; this answers at once with its record (state `queued`).
   */
  submitChange(request: ChangeRequest): Promise<ChangeRecord>;
  /** One change, or null when there is none with that id. */
  change(id: number): Promise<ChangeRecord | null>;
  /** Every change, oldest first. */
  changes(): Promise<ChangeRecord[]>;
  /**
   * Loads an image archive (`docker save`: a tar with a `manifest.json`) into the container engine and
   * answers the repo tags of what it loaded. Throws an `HttpProblem`: 422 (naming `body`) when the
   * engine refuses the archive, 503 when no engine is reachable, 502 when it fails otherwise.
   *
   * @example
   * await device.loadImage(archive) // ['busybox:latest']
   */
  loadImage(archive: Uint8Array): Promise<string[]>;
}

/**
 * What a change does to a chute.
 * - `start`: start its container, creating it from the stored record and configuration when there is
 *   none; `environment` is added to the configured one for this start.
 * - `stop`: stop its container.
 * - `restart`: stop, then start (with `environment` as for start).
 * - `delete`: stop and remove its container, then its stored documents.
 * - `update-config`: store `config` (already validated) and recreate the container with it; when that
 *   fails, the previous configuration is restored and its container runs again.
 * - `install`: store a new chute (`chute`, a name no installed chute has) whose container runs `image`,
 *   an image already in the engine, with `config` (already validated), then create and start its
 *   container as `start` does; when any step fails, what was made is removed and no chute is left.
 */
export type ChangeRequest =
  | { action: 'start' | 'restart'; chute: string; environment?: Record<string, string> }
  | { action: 'stop' | 'delete'; chute: string }
  | { action: 'update-config'; chute: string; config: Record<string, unknown> }
  | { action: 'install' } & ChuteInstall;

/**
 * What an install stores: the chute record's fields (`image`, `version`, `environment`, `allocation`)
 * and its configuration.
 *
 * @example
 * { chute: 'hello', image: 'hello-world:1', version: '1', config: { web: { port: 80 } }, environment: { MODE: 'demo' }, allocation: { cpu_shares: 512 } }
 */
export interface ChuteInstall {
  chute: string;
  /** A Docker image reference (`repo[:tag]` or `repo@sha256:…`) of an image already in the engine. */
  image: string;
  /** The installed version label; null when the client gave none. */
  version: string | null;
  /** The chute configuration (`service.json`), validated. */
  config: Record<string, unknown>;
  /** Variables of the chute record, given to the container after the configuration's. */
  environment: Record<string, string>;
  /** `{ cpu_shares?, prioritize_traffic?, … }` as the client gave it. */
  allocation: Record<string, unknown>;
}

export type ChangeAction = ChangeRequest['action'];

/** queued → running → succeeded or failed. */
export type ChangeState = 'queued' | 'running' | 'succeeded' | 'failed';

/** A change and what happened to it. Times are ISO 8601 strings. */
export interface ChangeRecord {
  /** Increases by one with every change, across runtime restarts. */
  id: number;
  action: ChangeAction;
  chute: string;
  state: ChangeState;
  created: string;
  updated: string;
  /** What happened, oldest first: `{ time, text }`. */
  messages: { time: string; text: string }[];
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

/** One chute network and the host resources behind it, as the chute cache records them. */
export interface NetworkTarget {
  chute: string;
  network: string;
  /** Host-side interface, e.g. `vwlan3f2a`: what `iw dev <if> …` is run on. */
  hostInterface: string | null;
  /** Path of hostapd's control socket for that interface, e.g. `/var/run/hostapd/vwlan3f2a`. */
  hostapdControl: string | null;
  /** Path of the dnsmasq lease file of the network. */
  leaseFile: string | null;
}

/** Raw access to the host resources behind one chute network. */
export interface NetworkHost {
  /** Output of `iw dev <hostInterface> station dump`, verbatim ('' when no station is connected). */
  stationDump(): Promise<string>;
  /** Output of `iw dev <hostInterface> station get <mac>`, verbatim; null when iw knows no such station. */
  stationGet(mac: string): Promise<string | null>;
  /** `iw dev <hostInterface> station del <mac>`: disconnects a station; false when there was none. */
  stationDel(mac: string): Promise<boolean>;
  /** The dnsmasq lease file, verbatim; null when it does not exist (yet). */
  leases(): Promise<string | null>;
  /**
   * One command to hostapd's control interface, and its reply verbatim: `['STATUS']`,
   * `['GET_CONFIG']`, `['SET', 'ssid', 'lab']` (reply `OK` or `FAIL`), `['RELOAD']`.
   */
  hostapd(command: string[]): Promise<string>;
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

/** The container name of a chute: `chute-<chute>`. */
export function chuteContainerName(chute: string): string {
  return `chute-${chute}`;
}

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

/**
 * A chute name, safe as a file name and a container name: a letter or digit first, then letters,
 * digits, `_`, `.` or `-`, 64 characters at most.
 */
export const CHUTE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$/;
