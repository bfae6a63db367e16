import { entryStream, readEntries } from '../../functions/core/logs.ts';
import type { ChuteLogEntry, Device, FsStats, NetworkHost, StoredChute, Uname } from '../../functions/core/device/index.ts';
import { PACTL_FILES, PASSWD_FILE } from '../scenario/format.ts';

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
  /** The `programs` answer, once asked. */
  programs: readonly string[] | undefined;
  /** The `containers` answer, once asked (null: the device has no engine). */
  containers: Record<string, unknown>[] | null | undefined;
  /** `containerStats` questions: container id → the answer (null when unavailable). */
  stats: Map<string, Record<string, unknown> | null>;
  /** `chute` questions: chute name → the answer (null: no such chute). */
  chutes: Map<string, StoredChute | null>;
  /** Chute name → network name → the raw answers of its tools that were asked and answered. */
  networks: Map<string, Map<string, NetworkRecording>>;
  /** Chute name → the lines of its log last read without following, oldest first. */
  logs: Map<string, ChuteLogEntry[]>;
}

/**
 * The raw answers about one chute network, named as the scenario files that hold them
 * (`NETWORK_FILES` of runtime/scenario/format.ts). A question whose tool failed is not kept.
 */
export interface NetworkRecording {
  /** `stationDump()`. */
  stationDump?: string;
  /** `leases()`: null when the lease file does not exist. */
  leases?: string | null;
  /** `hostapd(['STATUS'])`. */
  hostapdStatus?: string;
  /** `hostapd(['GET_CONFIG'])`. */
  hostapdConfig?: string;
  /** `hostapdStations()`. */
  hostapdStations?: string;
}

/** The hostapd commands that only read, and where their replies are recorded. */
const HOSTAPD_READS = new Map<string, 'hostapdStatus' | 'hostapdConfig'>([
  ['STATUS', 'hostapdStatus'],
  ['GET_CONFIG', 'hostapdConfig'],
]);

/**
 * Wraps a Device so that every question and its answer is logged in a `Recording`. Each question is
 * put to the inner device once: asking again answers the first answer, so handlers that run through
 * this device see one consistent snapshot, and that snapshot is exactly what the recording holds.
 * `now()` is passed through (a scenario uses the real clock). Of a chute network, the reads are
 * recorded (`stationDump`, `hostapdStations`, `leases`, hostapd `STATUS` and `GET_CONFIG`); `stationGet`, `stationDel`
 * and other hostapd commands are passed through unrecorded (a scenario answers them from the dump and
 * the hostapd replies), and never answered from a snapshot, as they change or probe the live device.
 * So are the change methods (`submitChange`, `change`, `changes`): a scenario has its own change log.
 * A chute's log read without following is read to its end and recorded (the last read of each
 * chute); one that follows is passed through unrecorded.
 * Of the accounts, the passwd database is recorded as the file a scenario serves it from
 * (`/etc/passwd`); keys, the host configuration, provisioning, settings, factory reset and the events
 * are passed through unrecorded.
 *
 * @example
 * const { device, recording } = recordingDevice(createHostDevice());
 * await hardware(input, device);
 * recording.files.get('/proc/meminfo') // 'MemTotal:  16318480 kB\n…'
 */
export function recordingDevice(inner: Device): { device: Device; recording: Recording } {
  const recording: Recording = {
    files: new Map(),
    dirs: new Map(),
    links: new Map(),
    statfs: new Map(),
    uname: undefined,
    programs: undefined,
    containers: undefined,
    stats: new Map(),
    chutes: new Map(),
    networks: new Map(),
    logs: new Map(),
  };
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
      once(
        `file:${path}`,
        () => inner.readFile(path),
        (text) => {
          if (text !== null) recording.files.set(path, text);
        },
      ),
    readDir: (path) =>
      once(
        `dir:${path}`,
        () => inner.readDir(path),
        (names) => recording.dirs.set(path, [...names]),
      ),
    realPath: (path) =>
      once(
        `link:${path}`,
        () => inner.realPath(path),
        (target) => recording.links.set(path, target),
      ),
    statfs: (path) =>
      once(
        `statfs:${path}`,
        () => inner.statfs(path),
        (stats) => recording.statfs.set(path, stats === null ? null : { ...stats }),
      ),
    uname: () =>
      once(
        'uname',
        () => inner.uname(),
        (uname) => (recording.uname = { ...uname }),
      ),
    programs: () =>
      once(
        'programs',
        () => inner.programs(),
        (names) => (recording.programs = [...names]),
      ),
    now: () => inner.now(),
    containers: () =>
      once(
        'containers',
        () => inner.containers(),
        (list) => (recording.containers = copy(list)),
      ),
    containerStats: (id) =>
      once(
        `stats:${id}`,
        () => inner.containerStats(id),
        (stats) => recording.stats.set(id, copy(stats)),
      ),
    chuteNames: () =>
      once(
        'chutes',
        () => inner.chuteNames(),
        () => {},
      ),
    chute: (name) =>
      once(
        `chute:${name}`,
        () => inner.chute(name),
        (chute) => recording.chutes.set(name, copy(chute)),
      ),
    chuteLogs: async (chute, options) =>
      options.follow
        ? inner.chuteLogs(chute, options)
        : entryStream(
            await once(
              `logs:${JSON.stringify([chute, options])}`,
              async () => readEntries(await inner.chuteLogs(chute, options)),
              (entries) => recording.logs.set(chute, copy(entries)),
            ),
          ),
    submitChange: (request) => inner.submitChange(request),
    change: (id) => inner.change(id),
    changes: () => inner.changes(),
    loadImage: (archive) => inner.loadImage(archive),
    accounts: {
      passwd: () =>
        once(
          'passwd',
          () => inner.accounts.passwd(),
          (text) => recording.files.set(PASSWD_FILE, text),
        ),
      authorizedKeys: (account) => inner.accounts.authorizedKeys(account),
      updateAuthorizedKeys: (account, update) => inner.accounts.updateAuthorizedKeys(account, update),
    },
    hostConfig: inner.hostConfig,
    provisioning: inner.provisioning,
    settings: () => inner.settings(),
    factoryReset: () => inner.factoryReset(),
    snapd: (request) => inner.snapd(request),
    followEvents: (listener, after) => inner.followEvents(listener, after),
    audio: {
      ...inner.audio,
      // What pactl prints, kept where a scenario's audio server reads it (`PACTL_FILES`).
      pactl: (listing) =>
        once(
          `pactl:${listing}`,
          () => inner.audio.pactl(listing),
          (text) => {
            if (text !== null) recording.files.set(PACTL_FILES[listing], text);
          },
        ),
    },
    network(target) {
      const host = inner.network(target);
      const id = JSON.stringify([target.chute, target.network]);
      const keep = (field: keyof NetworkRecording) => (answer: string | null) => {
        let networks = recording.networks.get(target.chute);
        if (networks === undefined) recording.networks.set(target.chute, (networks = new Map()));
        let network = networks.get(target.network);
        if (network === undefined) networks.set(target.network, (network = {}));
        (network as Record<keyof NetworkRecording, string | null>)[field] = answer;
      };
      const recorded: NetworkHost = {
        stationDump: () => once(`stationDump:${id}`, () => host.stationDump(), keep('stationDump')),
        stationGet: (mac) => host.stationGet(mac),
        stationDel: (mac) => host.stationDel(mac),
        hostapdEvents: (onEvent, onEnd) => host.hostapdEvents(onEvent, onEnd),
        hostapdStations: () => once(`hostapdStations:${id}`, () => host.hostapdStations(), keep('hostapdStations')),
        leases: () => once(`leases:${id}`, () => host.leases(), keep('leases')),
        hostapd(command) {
          const field = command.length === 1 ? HOSTAPD_READS.get(command[0]!) : undefined;
          return field === undefined ? host.hostapd(command) : once(`${field}:${id}`, () => host.hostapd(command), keep(field));
        },
      };
      return recorded;
    },
  };
  return { device, recording };
}

/** Where the kernel lists the network interfaces, one folder per interface. */
const NET_CLASS = '/sys/class/net';

/** The entries that mark an interface folder of /sys/class/net as Wi-Fi, as `generateHostConfig` looks for them. */
const WIFI_ENTRIES = new Set(['phy80211', 'wireless']);

/**
 * Keeps, of each recorded listing of an interface folder in /sys/class/net, only `phy80211` and
 * `wireless`, and `device` when its link was recorded: a scenario written from it holds `device` as
 * the link it is, `phy80211` and `wireless` as folders, and none of the interface's other attributes
 * as empty folders.
 *
 * @example
 * // recording.dirs: '/sys/class/net/eth0' → ['address', 'device', 'mtu', …], links: '/sys/class/net/eth0/device' → '/sys/devices/…'
 * trimNetInterfaces(recording);
 * // recording.dirs: '/sys/class/net/eth0' → ['device']
 */
export function trimNetInterfaces(recording: Recording): void {
  for (const [dir, names] of recording.dirs) {
    if (dir.slice(0, dir.lastIndexOf('/')) !== NET_CLASS) continue;
    const linked = (name: string) => name === 'device' && (recording.links.get(`${dir}/${name}`) ?? null) !== null;
    recording.dirs.set(
      dir,
      names.filter((name) => WIFI_ENTRIES.has(name) || linked(name)),
    );
  }
}

/** Handlers get their own copy, so none can change what another sees or what is recorded. */
function copy<T>(value: T): T {
  return value !== null && typeof value === 'object' ? structuredClone(value) : value;
}
