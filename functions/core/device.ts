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
  /**
   * The host configuration: what is stored, and its system rendering (pdconf). A new configuration is
   * applied as a change: `submitChange({ action: 'update-hostconfig', config })`.
   */
  hostConfig: HostConfigStore;
  /** Provisioning with the cloud controller, and the telemetry sent to it. */
  provisioning: Provisioning;
  /** The system accounts and their authorized SSH keys. */
  accounts: Accounts;
  /** Every setting, by lower-case name, as loaded once at start (read-only). */
  settings(): Promise<Settings>;
  /**
   * Waits for every queued change, then (while no other change runs) restores a fresh install: the
   * default host configuration, no chute (containers and state), no provisioning, no runtime
   * credentials. Answers when done.
   */
  factoryReset(): Promise<{ success: boolean; message: string }>;
}

/** Settings values: what a settings file or an environment variable can give. */
export type Settings = Record<string, string | number | boolean | string[] | null>;

/**
 * The stored host configuration and the system configuration it implies (pdconf).
 *
 * @example
 * await device.hostConfig.read() // 'firewall:\n  defaults:\n    input: ACCEPT\n…', or null on a fresh install
 */
export interface HostConfigStore {
  /** The stored host configuration, as stored (YAML); null when none is stored and the default applies. */
  read(): Promise<string | null>;
  /** Each rendered section (network, wireless, dhcp, firewall) and how its last apply went. */
  pdconf(): Promise<PdconfSection[]>;
  /** Renders the sections again from the host configuration and the chutes' networks, applies every file, and answers the new status. */
  reloadPdconf(): Promise<PdconfSection[]>;
}

/** One UCI section that pdconf rendered, and whether applying its file worked. */
export interface PdconfSection {
  /** UCI section type, e.g. `interface`, `wifi-device`, `wifi-iface`, `dhcp`, `defaults`, `zone`. */
  type: string;
  /** Section name, e.g. `lan`. */
  name: string;
  /** Which file it is in and what happened, e.g. `network: applied with /etc/init.d/network reload`. */
  comment: string;
  /** True when its file's apply command succeeded; false when it failed or there is no apply command. */
  success: boolean;
  /** As in ParaDrop: how many pdconf runs (updates, reloads) ago its file was last applied (or rendered, when never applied); 0 for the latest run. */
  age: number;
}

/** What `POST /api/v1/config/provision` takes: what ParaDrop clients send. */
export interface ProvisionCredentials {
  /** The device's id at the controller; becomes the pdid. */
  routerId: string;
  /** The device's API token at the controller: a secret, never answered by a GET. */
  apitoken: string;
  /** The controller's base URL, `http(s)://…`. */
  pdserver: string;
  /** The controller's WAMP router URL, `ws(s)://…` (stored; chutebox reports over HTTP). */
  wampRouter: string;
}

/** The provisioning state, without the token. */
export interface ProvisionStatus {
  provisioned: boolean;
  routerId: string | null;
  pdserver: string | null;
  wampRouter: string | null;
  /** True when the last exchange with the controller over HTTP succeeded. */
  httpConnected: boolean;
  /** Always false: chutebox does not connect to the WAMP router. */
  wampConnected: boolean;
  /** When the credentials were stored (ISO 8601); null when not provisioned. */
  provisionedAt: string | null;
  telemetry: TelemetryStatus;
}

/** How sending telemetry reports to the controller goes. */
export interface TelemetryStatus {
  /** True when provisioned and the host configuration's `telemetry.enabled` is true. */
  enabled: boolean;
  /** Seconds between reports. */
  interval: number;
  /** When a report was last delivered (ISO 8601), or null. */
  lastSuccess: string | null;
  /** The last failure, or null once a report was delivered after it. */
  lastError: { time: string; message: string } | null;
  /** Reports waiting to be delivered. */
  queued: number;
  /** Reports dropped, oldest first, because the queue was full. */
  dropped: number;
}

/** Provisioning with the cloud controller. */
export interface Provisioning {
  status(): Promise<ProvisionStatus>;
  /**
   * Checks the credentials with the controller at `pdserver`, then stores them privately; the pdid
   * becomes `routerId`. Throws an `HttpProblem` and stores nothing when the controller refuses them
   * (422 naming the field), cannot be reached or answers nonsense (502), or does not answer in time (504),
   * and 409 during a factory reset.
   */
  provision(credentials: ProvisionCredentials): Promise<ProvisionStatus>;
}

/** One entry of the passwd database. */
export interface Account {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/**
 * The system accounts (raw passwd database) and their `~/.ssh/authorized_keys`. Reading or writing
 * keys throws an `HttpProblem` 409 naming the path when the home folder refuses it: no home folder,
 * or a symbolic link (or not a regular file) at `~/.ssh` or `authorized_keys`, which the runtime,
 * running as root, never follows.
 */
export interface Accounts {
  /** The passwd database, verbatim (`/etc/passwd` format). */
  passwd(): Promise<string>;
  /** The account's `~/.ssh/authorized_keys`, verbatim; null when it does not exist. */
  authorizedKeys(account: Account): Promise<string | null>;
  /**
   * Read-modify-write of the account's `~/.ssh/authorized_keys`, one at a time per account: `update`
   * gets the current text (null when none) and answers the new text, or null to leave it alone. The
   * file is written atomically, mode 600 in a `~/.ssh` of mode 700, both owned by the account.
   */
  updateAuthorizedKeys(account: Account, update: (current: string | null) => string | null): Promise<void>;
}

/**
 * What a change does to a chute.
 * - `start`: start its container, creating it from the stored record and configuration when there is
 *   none; an `environment` replaces the record's for good (ParaDrop's rule) and the container is made
 *   again with it.
 * - `stop`: stop its container.
 * - `restart`: stop, then start (with `environment` as for start).
 * - `delete`: stop and remove its container, then its stored documents.
 * - `update-config`: store `config` (already validated) and recreate the container with it; when that
 *   fails, the previous configuration is restored and its container runs again.
 * - `update-hostconfig` (not about a chute): store `config` (a host configuration, already validated)
 *   as the host configuration, keeping the previous one, and apply it (pdconf); when that fails, the
 *   previous one is stored and applied again.
 * - `install`: store a new chute (`chute`, a name no installed chute has) whose container runs `image`,
 *   an image already in the engine, with `config` (already validated), then create and start its
 *   container as `start` does; when any step fails, what was made is removed and no chute is left.
 *   With a `source` (a chute's source: a tar with its Dockerfile at its root) and `image` null, the
 *   engine first builds the image from it (`chuteImageTag`), its output in the change's messages; a
 *   failed build fails the change before anything is stored.
 * - `update`: build the image of an installed chute's new `source` as an install does, then replace
 *   the chute's image, `version`, `environment` and `config` and recreate its container, as
 *   `update-config` does: when the new container fails, the previous record, configuration and
 *   container come back and the image it built is removed.
 * - `reboot`, `shutdown` (not about a chute): reboot or power off the device itself, as ParaDrop's
 *   `ROUTER` updates of the same names do. The runtime runs the configured command (`--reboot-command`,
 *   `--shutdown-command`); the emulator only says that it would.
 *
 * The `config` of `update-config` and `update-hostconfig` keeps the `[redacted]` placeholders of the
 * PUT: the work that applies it resolves them against the configuration in effect when it runs
 * (`resolvePlaceholders`, functions/chutes/redact.ts), and fails, with nothing applied, when one has
 * no secret behind it any more.
 */
export type ChangeRequest =
  | { action: 'start' | 'restart'; chute: string; environment?: Record<string, string> }
  | { action: 'update-hostconfig'; config: Record<string, unknown> }
  | { action: 'reboot' }
  | { action: 'shutdown' }
  | { action: 'stop' | 'delete'; chute: string }
  | { action: 'update-config'; chute: string; config: Record<string, unknown> }
  | { action: 'install' } & ChuteInstall
  | ({ action: 'update' } & ChuteUpdate);

/**
 * What an install stores: the chute record's fields (`image`, `version`, `environment`, `allocation`)
 * and its configuration.
 *
 * @example
 * { chute: 'hello', image: 'hello-world:1', version: '1', config: { web: { port: 80 } }, environment: { MODE: 'demo' }, allocation: { cpu_shares: 512 } }
 */
export interface ChuteInstall {
  chute: string;
  /**
   * A Docker image reference (`repo[:tag]` or `repo@sha256:…`) of an image already in the engine;
   * null when the change builds it from `source`.
   */
  image: string | null;
  /** The chute's source, a tar with its Dockerfile at its root: the build context of its image (with `image` null). */
  source?: Uint8Array;
  /** The installed version label; null when the client gave none. */
  version: string | null;
  /** The chute configuration (`service.json`), validated. */
  config: Record<string, unknown>;
  /** Variables of the chute record, given to the container after the configuration's. */
  environment: Record<string, string>;
  /** `{ cpu_shares?, prioritize_traffic?, … }` as the client gave it. */
  allocation: Record<string, unknown>;
}

/**
 * What an update from a chute's source replaces: the record's `version` and `environment`, the
 * configuration, and the image, built from `source` (a tar with its Dockerfile at its root). The
 * record's `allocation` stays.
 */
export interface ChuteUpdate {
  chute: string;
  version: string | null;
  config: Record<string, unknown>;
  environment: Record<string, string>;
  source: Uint8Array;
}

export type ChangeAction = ChangeRequest['action'];

/** The changes that stop the whole device: the runtime stops with it. */
export type DevicePowerAction = 'reboot' | 'shutdown';

/**
 * The chute a change is about, or null for a change to the device itself.
 *
 * @example
 * changeSubject({ action: 'stop', chute: 'hello' })            // 'hello'
 * changeSubject({ action: 'update-hostconfig', config: {} })  // null
 * changeSubject({ action: 'reboot' })                           // null
 */
export function changeSubject(request: ChangeRequest): string | null {
  return 'chute' in request ? request.chute : null;
}

/**
 * The queue a change waits in, after the changes before it in the same queue: its chute's, or `''`
 * for changes to the device itself (no chute name is empty).
 */
export function changeQueue(request: ChangeRequest): string {
  return changeSubject(request) ?? '';
}

/** queued → running → succeeded or failed. */
export type ChangeState = 'queued' | 'running' | 'succeeded' | 'failed';

/** A change and what happened to it. Times are ISO 8601 strings. */
export interface ChangeRecord {
  /** Increases by one with every change, across runtime restarts. */
  id: number;
  action: ChangeAction;
  /** The chute it is about; null for a change to the device (`update-hostconfig`, `reboot`, `shutdown`). */
  chute: string | null;
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
  /**
   * Subscribes to hostapd's events, as `ATTACH` on its control socket does, and answers once
   * subscribed. `onEvent` gets each event's text without hostapd's `<level>` prefix (which the device
   * may not know), e.g. `AP-STA-DISCONNECTED 02:00:00:00:00:01`; `onEnd` gets why the events
   * stopped when they stop by themselves (hostapd went away), never after `stop()`. Throws as
   * `hostapd` does (503 when the control socket is missing or does not answer, 504).
   *
   * @example
   * const events = await host.hostapdEvents((text) => console.log(text), (reason) => console.error(reason));
   * await events.stop();
   */
  hostapdEvents(onEvent: (text: string) => void, onEnd: (reason: string) => void): Promise<HostapdEvents>;
}

/** A subscription to hostapd's events (`NetworkHost.hostapdEvents`). */
export interface HostapdEvents {
  /**
   * Ends the subscription: no event or end comes after it. Resolves once whatever ran for it has
   * stopped (the runtime's hostapd_cli process has exited).
   */
  stop(): Promise<void>;
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
