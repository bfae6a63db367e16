import { memoryAccounts, type MemoryAccountsSpec } from '../../emulator/scenario/accounts.ts';
import { memoryHostConfig, type MemoryHostConfigOptions } from '../../emulator/scenario/host-config.ts';
import { scenarioProvisioning, type ScenarioProvisioning, type ScenarioProvisioningOptions } from '../../emulator/scenario/provisioning.ts';
import { generateHostConfig } from '../../functions/config/host-config.ts';
import type {
  ChangeRecord,
  ChangeRequest,
  Device,
  DeviceChanges,
  DeviceNetworks,
  DeviceServices,
  DeviceSources,
  FsStats,
  LogEntry,
  NetworkHost,
  NetworkTarget,
  Settings,
  StoredChute,
  Uname,
} from '../../functions/core/device/index.ts';
import { memoryChangeLog } from '../../runtime/changes/memory-log.ts';
import { changeRunner } from '../../runtime/changes/runner.ts';
import { telemetryReport } from '../../runtime/controller/telemetry.ts';
import { eventBuffer, type PublishEvent } from '../../runtime/events/buffer.ts';
import { everyAction } from './change-effects.ts';
import { uploadedImageTags } from '../../functions/parsers/image-archive.ts';
import { recordedNetworks } from '../../emulator/scenario/recorded-networks.ts';
import { recordedLogs } from '../../emulator/scenario/logs.ts';
import { scenarioSnapd } from '../../emulator/scenario/snapd.ts';
import { emulatedAudio, type RecordedPactl } from '../../emulator/scenario/audio.ts';

/** What a test device holds; everything is optional and missing means "the device lacks it". */
export interface MemoryDeviceSpec {
  /** Device path → contents, e.g. `{ '/proc/meminfo': 'MemTotal: 1024 kB\n' }`. */
  files?: Record<string, string>;
  /** Device path → what `realPath` answers for it, e.g. a radio's `device` link. */
  links?: Record<string, string>;
  statfs?: Record<string, FsStats>;
  uname?: Partial<Uname>;
  /** What `programs()` answers (names of `KNOWN_PROGRAMS`); none by default. */
  programs?: readonly string[];
  now?: number;
  /** Entries of `GET /containers/json` (chutes only); null (the default) means no container engine. */
  containers?: Record<string, unknown>[] | null;
  /** Container id → body of `GET /containers/<id>/stats?stream=false`; a missing id has no stats. */
  stats?: Record<string, Record<string, unknown>>;
  /** Installed chutes by name: their documents, each `{}` when not given. */
  chutes?: Record<string, Partial<Omit<StoredChute, 'name'>>>;
  /** `<chute>/<network>` → the recordings of that chute network; a network not listed has none (no stations, no leases, hostapd a 503). */
  networks?: Record<string, MemoryNetwork>;
  /** Changes the device already knows, oldest first; new ones get ids after the largest. */
  changes?: ChangeRecord[];
  /** The system accounts and their keys (the emulator's in-memory ones); none by default. */
  accounts?: MemoryAccountsSpec;
  /** The host configuration (the emulator's in-memory one); by default none stored, the one generated from this device's hardware applies. */
  hostConfig?: MemoryHostConfigOptions;
  /** Provisioning (the emulator's, with its built-in fake controller); not provisioned by default. */
  provisioning?: Partial<ScenarioProvisioningOptions>;
  /** What `settings()` answers; {} by default. */
  settings?: Settings;
  /** Chute name → the lines it printed, oldest first, replayed on the device's clock (the emulator's `recordedLogs`); none by default. */
  logs?: Record<string, LogEntry[]>;
  /** What pactl prints on the device (the emulator's audio server edits it); no audio server by default. */
  audio?: RecordedPactl;
}

/**
 * The raw outputs of one chute network's host resources, as a device's tools would print them: the
 * recordings of `recordedNetworks` (emulator/scenario/recorded-networks.ts), which answers from them.
 */
export interface MemoryNetwork {
  /**
   * What `iw … station dump` prints; `station get` answers one block of it. Not given: '' (no
   * station), or where `hostapdStations` is given a 503, as on a device where iw cannot answer.
   */
  stationDump?: string;
  /** The dnsmasq lease file; absent or null: dnsmasq has written none yet. */
  leases?: string | null;
  /** hostapd's reply to `STATUS`; without it and `hostapdConfig`, every hostapd command is a 503. */
  hostapdStatus?: string;
  /** hostapd's reply to `GET_CONFIG`. */
  hostapdConfig?: string;
  /** What `hostapd_cli … all_sta` prints; without it, `hostapdStations` is a 503. */
  hostapdStations?: string;
  /**
   * hostapd's reply to commands by their first word (`SET`, `RELOAD`), instead of what the recordings
   * answer; such a command changes nothing (a `SET ssid` answered here sets no SSID).
   */
  hostapdReplies?: Record<string, string>;
  /** What an operation throws instead of answering, e.g. `{ hostapd: new HttpProblem(504, '…') }`. */
  fails?: Partial<Record<NetworkOperation, Error>>;
}

/** The operations of `NetworkHost`. */
export type NetworkOperation = keyof NetworkHost;

/** One call a handler made on a chute network's host side. */
export interface NetworkCall {
  target: NetworkTarget;
  operation: NetworkOperation;
  args: string[];
}

/**
 * A Device held in memory; `calls` lists what handlers asked of chute networks, in order, and
 * `submitted` the change requests handlers queued (through the one change pipeline, where they stay
 * `queued`: nothing runs them), `loaded`
 * the image archives handlers loaded (their tags read from the archive's manifest.json);
 * `publishEvent` reports an event as the device's sources would.
 */
export type MemoryDevice = Device & {
  readonly calls: NetworkCall[];
  readonly submitted: ChangeRequest[];
  readonly loaded: Uint8Array[];
  readonly hostConfig: ReturnType<typeof memoryHostConfig>;
  readonly provisioning: ScenarioProvisioning;
  readonly publishEvent: PublishEvent;
};

/**
 * A Device held in memory, for handler tests on hand-written raw sources, composed of its five
 * facets: `memorySources`, `memoryNetworks`, `memoryChanges`, `memoryServices`, the emulator's
 * `recordedLogs` over `spec.logs`, and its events (the runtime's `eventBuffer`, which the other facets
 * publish to as the emulator's do). State lives as long as the device.
 *
 * @example
 * const device = memoryDevice({ files: { '/proc/uptime': '12.5 30.1\n' } });
 * const ap = memoryDevice({ chutes: { hello: { config: { net: { wlan: { type: 'wifi', intfName: 'wlan0' } } } } }, networks: { 'hello/wlan': { stationDump: '' } } });
 */
export function memoryDevice(spec: MemoryDeviceSpec = {}): MemoryDevice {
  const sources = memorySources(spec);
  const events = eventBuffer(sources.now);
  const changes = memoryChanges(spec.changes, sources.now, events.publish);
  const services = memoryServices(spec, () => device, { removeChutes: sources.removeChutes, clearChanges: changes.clear }, events.publish);
  const { removeChutes: _sources, ...sourceFacet } = sources;
  const { clear: _changes, ...changeFacet } = changes;
  const logs = recordedLogs({ read: async (chute) => spec.logs?.[chute] ?? [], device: sourceFacet });
  const device: MemoryDevice = {
    ...sourceFacet,
    ...memoryNetworks(spec.networks, events.publish),
    ...changeFacet,
    ...services,
    ...logs,
    audio: emulatedAudio(spec.audio ?? null),
    followEvents: events.followEvents,
    publishEvent: events.publish,
  };
  return device;
}

/**
 * The raw sources of a memory device. Directory listings are derived from the file and link paths
 * as they are at the call, as a file system would show them (a test that adds or deletes a path of
 * `spec.files` or `spec.links` sees the folder change); `removeChutes` uninstalls every chute (the
 * factory reset's part).
 */
export function memorySources(spec: MemoryDeviceSpec): DeviceSources & { removeChutes(): void } {
  const files = spec.files ?? {};
  const links = spec.links ?? {};
  const paths = () => [...Object.keys(files), ...Object.keys(links)];
  let chutes = spec.chutes ?? {};
  return {
    async settings() {
      return structuredClone(spec.settings ?? {});
    },
    async readFile(path) {
      return files[path] ?? null;
    },
    async readDir(path) {
      const prefix = path.endsWith('/') ? path : `${path}/`;
      const names = new Set<string>();
      for (const p of paths()) if (p.startsWith(prefix)) names.add(p.slice(prefix.length).split('/')[0]!);
      return [...names].sort();
    },
    async realPath(path) {
      if (path in links) return links[path]!;
      return path in files || paths().some((p) => p.startsWith(`${path}/`)) ? path : null;
    },
    async statfs(path) {
      return spec.statfs?.[path] ?? null;
    },
    async uname() {
      return { sysname: 'Linux', release: '6.1.0', version: '#1 SMP', machine: 'x86_64', ...spec.uname };
    },
    async programs() {
      return spec.programs ?? [];
    },
    now: () => spec.now ?? Date.UTC(2026, 10, 21, 12, 0, 0),
    async containers() {
      return spec.containers ?? null;
    },
    async containerStats(id) {
      const stats = spec.stats ?? {};
      return spec.containers != null && Object.hasOwn(stats, id) ? stats[id]! : null;
    },
    async chuteNames() {
      return Object.keys(chutes).sort();
    },
    async chute(name) {
      const chute = chutes[name];
      return chute === undefined ? null : { name, record: chute.record ?? {}, config: chute.config ?? {}, cache: chute.cache ?? {} };
    },
    removeChutes() {
      chutes = {};
    },
  };
}

/**
 * The chute networks of a memory device: the emulator's `recordedNetworks` over the recordings given
 * by `<chute>/<network>` (a network not listed has none), so `station get` and `station del` find a
 * MAC's block of the dump (any case) and a `SET ssid` shows in what `GET_CONFIG` and `STATUS` print,
 * as in the emulator. On top of it, `calls` lists every call in order (before it answers), and each
 * network's `fails` and `hostapdReplies` answer instead of the recordings.
 */
export function memoryNetworks(networks: Record<string, MemoryNetwork> = {}, publish?: PublishEvent): DeviceNetworks & { readonly calls: NetworkCall[] } {
  const calls: NetworkCall[] = [];
  const recorded = recordedNetworks(async ({ chute, network }, recording) => networks[`${chute}/${network}`]?.[recording] ?? null, undefined, publish);
  return {
    calls,
    network(target) {
      const host = recorded(target);
      const spec = networks[`${target.chute}/${target.network}`];
      /** Records the call, then throws the failure given for the operation, if any. */
      const call = (operation: NetworkOperation, args: string[] = []) => {
        calls.push({ target, operation, args });
        const failure = spec?.fails?.[operation];
        if (failure !== undefined) throw failure;
      };
      return {
        async stationDump() {
          call('stationDump');
          return host.stationDump();
        },
        async stationGet(mac) {
          call('stationGet', [mac]);
          return host.stationGet(mac);
        },
        async stationDel(mac) {
          call('stationDel', [mac]);
          return host.stationDel(mac);
        },
        async hostapdStations() {
          call('hostapdStations');
          return host.hostapdStations();
        },
        async leases() {
          call('leases');
          return host.leases();
        },
        async hostapdEvents(onEvent, onEnd) {
          call('hostapdEvents');
          return host.hostapdEvents(onEvent, onEnd);
        },
        async hostapd(command) {
          call('hostapd', command);
          return spec?.hostapdReplies?.[command[0] ?? ''] ?? host.hostapd(command);
        },
      };
    },
  };
}

/**
 * The changes of a memory device: the one pipeline, on a log in memory; they stay queued, as nothing
 * here lets them run. `submitted` lists the requests in order; `clear` empties the log (the factory
 * reset's part).
 */
export function memoryChanges(
  known: ChangeRecord[] | undefined,
  now: () => number,
  publish?: PublishEvent,
): DeviceChanges & { readonly submitted: ChangeRequest[]; clear(): void } {
  const submitted: ChangeRequest[] = [];
  const changeLog = memoryChangeLog(known);
  const changes = changeRunner({
    openLog: async () => changeLog,
    now,
    publish,
    effects: everyAction(async () => {}),
    turn: () => new Promise<void>(() => {}),
  });
  return {
    submitted,
    async submitChange(request) {
      submitted.push(structuredClone(request));
      return changes.submitChange(request);
    },
    change: changes.change,
    changes: changes.changes,
    clear: () => changeLog.clear(),
  };
}

/**
 * The services of a memory device: the emulator's in-memory accounts, host configuration (generated
 * from the `device`'s hardware by default) and provisioning (reporting the `device`'s telemetry);
 * `loadImage` answers the archive's tags and lists it in `loaded`; the factory reset removes the chutes
 * and changes (through `reset`), provisioning and the stored host configuration; snapd answers as the
 * emulator's does from the `/snapd.yaml` of `files`, none without it.
 */
export function memoryServices(
  spec: MemoryDeviceSpec,
  device: () => Device,
  reset: { removeChutes(): void; clearChanges(): void },
  publish?: PublishEvent,
): DeviceServices & Pick<MemoryDevice, 'hostConfig' | 'provisioning' | 'loaded'> {
  const loaded: Uint8Array[] = [];
  const provisioning = scenarioProvisioning({ report: () => telemetryReport(device()), publish, ...spec.provisioning });
  const hostConfig = memoryHostConfig({
    chutes: { chuteNames: () => device().chuteNames(), chute: (name) => device().chute(name) },
    generate: () => generateHostConfig(device()),
    publish,
    ...spec.hostConfig,
  });
  return {
    loaded,
    hostConfig,
    provisioning,
    accounts: memoryAccounts(spec.accounts),
    async factoryReset() {
      reset.removeChutes();
      reset.clearChanges();
      await provisioning.clear();
      await hostConfig.reset();
      return { success: true, message: 'memory device: reset' };
    },
    snapd: scenarioSnapd({ readFile: (path) => device().readFile(path) }),
    async loadImage(archive) {
      const tags = await uploadedImageTags(archive);
      loaded.push(archive);
      return tags;
    },
  };
}
