import type { Provisioning } from './provisioning.ts';
import type { SnapdAnswer, SnapdRequest } from './snapd.ts';

/**
 * The domain services of a device: the engine's image store, the host configuration, provisioning with
 * the controller, the system accounts, and the factory reset. Unlike the raw sources they act, and
 * answer what they did.
 */
export interface DeviceServices {
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
  /**
   * Waits for every queued change, then (while no other change runs) restores a fresh install: the
   * default host configuration, no chute (containers and state), no provisioning, no runtime
   * credentials. Answers when done.
   */
  factoryReset(): Promise<{ success: boolean; message: string }>;
  /**
   * Passes one request on to the device's snapd (ParaDrop's `/snapd/*`) and answers snapd's answer as it
   * is, whatever its status. Throws an `HttpProblem`: 503 when the device runs no snapd, 502 when snapd
   * breaks off or answers more than the runtime keeps, 504 when it does not answer in time.
   *
   * @example
   * await device.snapd({ method: 'GET', target: '/v2/interfaces', contentType: null, body: null }) // { status: 200, contentType: 'application/json', body }
   */
  snapd(request: SnapdRequest): Promise<SnapdAnswer>;
}

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
