import { memoryAccounts, type MemoryAccountsSpec } from '../../emulator/scenario-accounts.ts';
import { memoryHostConfig, type MemoryHostConfigOptions } from '../../emulator/scenario-host-config.ts';
import { scenarioProvisioning, type ScenarioProvisioning, type ScenarioProvisioningOptions } from '../../emulator/scenario-provisioning.ts';
import { generateHostConfig } from '../../functions/config/host-config.ts';
import {
  type ChangeRecord,
  type ChangeRequest,
  type Device,
  type FsStats,
  type NetworkHost,
  type NetworkTarget,
  type Settings,
  type StoredChute,
  type Uname,
} from '../../functions/core/device.ts';
import { memoryChangeLog } from '../../runtime/changes/memory-log.ts';
import { changeRunner } from '../../runtime/changes/runner.ts';
import { telemetryReport } from '../../runtime/controller/telemetry.ts';
import { everyAction } from './change-effects.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { encodeSsid } from '../../functions/parsers/hostapd.ts';
import { uploadedImageTags } from '../../functions/parsers/image-archive.ts';
import { stationBlocks } from '../../functions/parsers/iw-station.ts';

/** What a test device holds; everything is optional and missing means "the device lacks it". */
export interface MemoryDeviceSpec {
  /** Device path → contents, e.g. `{ '/proc/meminfo': 'MemTotal: 1024 kB\n' }`. */
  files?: Record<string, string>;
  /** Device path → what `realPath` answers for it, e.g. a radio's `device` link. */
  links?: Record<string, string>;
  statfs?: Record<string, FsStats>;
  uname?: Partial<Uname>;
  now?: number;
  /** Entries of `GET /containers/json` (chutes only); null (the default) means no container engine. */
  containers?: Record<string, unknown>[] | null;
  /** Container id → body of `GET /containers/<id>/stats?stream=false`; a missing id has no stats. */
  stats?: Record<string, Record<string, unknown>>;
  /** Installed chutes by name: their documents, each `{}` when not given. */
  chutes?: Record<string, Partial<Omit<StoredChute, 'name'>>>;
  /** `<chute>/<network>` → the host side of that chute network; a network not listed has none (503). */
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
}

/** The raw outputs of one chute network's host resources, as a device's tools would print them. */
export interface MemoryNetwork {
  /** What `iw … station dump` prints ('' when not given); `station get` answers one block of it. */
  stationDump?: string;
  /** The dnsmasq lease file; absent or null: dnsmasq has written none yet. */
  leases?: string | null;
  /** hostapd's reply to `STATUS`. */
  hostapdStatus?: string;
  /** hostapd's reply to `GET_CONFIG`. */
  hostapdConfig?: string;
  /** hostapd's reply to other commands by their first word (`SET`, `RELOAD`); `OK` when not given. */
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
 * the image archives handlers loaded (their tags read from the archive's manifest.json).
 */
export type MemoryDevice = Device & {
  readonly calls: NetworkCall[];
  readonly submitted: ChangeRequest[];
  readonly loaded: Uint8Array[];
  readonly hostConfig: ReturnType<typeof memoryHostConfig>;
  readonly provisioning: ScenarioProvisioning;
};

/**
 * A Device held in memory, for handler tests on hand-written raw sources. Directory listings are
 * derived from the file and link paths, as a file system would show them. Chute networks behave as
 * the tools do: `station get` and `station del` find a MAC's block of the dump (any case), a
 * `SET ssid` answered OK changes what `GET_CONFIG` and `STATUS` print (escaped as hostapd does).
 * State lives as long as the device.
 *
 * @example
 * const device = memoryDevice({ files: { '/proc/uptime': '12.5 30.1\n' } });
 * const ap = memoryDevice({ chutes: { hello: { config: { net: { wlan: { type: 'wifi', intfName: 'wlan0' } } } } }, networks: { 'hello/wlan': { stationDump: '' } } });
 */
export function memoryDevice(spec: MemoryDeviceSpec = {}): MemoryDevice {
  const files = spec.files ?? {};
  const links = spec.links ?? {};
  const paths = [...Object.keys(files), ...Object.keys(links)];
  const calls: NetworkCall[] = [];
  const submitted: ChangeRequest[] = [];
  const loaded: Uint8Array[] = [];
  const now = () => spec.now ?? Date.UTC(2026, 10, 21, 12, 0, 0);
  const changeLog = memoryChangeLog(spec.changes);
  /** The device's changes: the one pipeline, on a log in memory; they stay queued, as nothing here lets them run. */
  const changes = changeRunner({
    openLog: async () => changeLog,
    now,
    effects: everyAction(async () => {}),
    turn: () => new Promise<void>(() => {}),
  });
  const networks = new Map(Object.entries(spec.networks ?? {}).map(([key, network]) => [key, { ...network }]));
  const provisioning = scenarioProvisioning({ report: () => telemetryReport(device), ...spec.provisioning });
  const hostConfig = memoryHostConfig({
    chutes: { chuteNames: () => device.chuteNames(), chute: (name) => device.chute(name) },
    generate: () => generateHostConfig(device),
    ...spec.hostConfig,
  });
  const device: MemoryDevice = {
    calls,
    loaded,
    submitted,
    hostConfig,
    provisioning,
    accounts: memoryAccounts(spec.accounts),
    async settings() {
      return structuredClone(spec.settings ?? {});
    },
    async factoryReset() {
      spec.chutes = {};
      changeLog.clear();
      await provisioning.clear();
      await hostConfig.reset();
      return { success: true, message: 'memory device: reset' };
    },
    async readFile(path) {
      return files[path] ?? null;
    },
    async readDir(path) {
      const prefix = path.endsWith('/') ? path : `${path}/`;
      const names = new Set<string>();
      for (const p of paths) if (p.startsWith(prefix)) names.add(p.slice(prefix.length).split('/')[0]!);
      return [...names].sort();
    },
    async realPath(path) {
      if (path in links) return links[path]!;
      return path in files || paths.some((p) => p.startsWith(`${path}/`)) ? path : null;
    },
    async statfs(path) {
      return spec.statfs?.[path] ?? null;
    },
    async uname() {
      return { sysname: 'Linux', release: '6.1.0', version: '#1 SMP', machine: 'x86_64', ...spec.uname };
    },
    now,
    async containers() {
      return spec.containers ?? null;
    },
    async containerStats(id) {
      const stats = spec.stats ?? {};
      return spec.containers != null && Object.hasOwn(stats, id) ? stats[id]! : null;
    },
    async chuteNames() {
      return Object.keys(spec.chutes ?? {}).sort();
    },
    async chute(name) {
      const chute = spec.chutes?.[name];
      return chute === undefined ? null : { name, record: chute.record ?? {}, config: chute.config ?? {}, cache: chute.cache ?? {} };
    },
    network(target) {
      return memoryNetwork(target, networks.get(`${target.chute}/${target.network}`), calls);
    },
    async submitChange(request) {
      submitted.push(structuredClone(request));
      return changes.submitChange(request);
    },
    change: changes.change,
    changes: changes.changes,
    async loadImage(archive) {
      const tags = await uploadedImageTags(archive);
      loaded.push(archive);
      return tags;
    },
  };
  return device;
}

/** Who subscribed to the hostapd events of a network (`hostapdEvents`), by network. */
const eventListeners = new WeakMap<MemoryNetwork, Set<(text: string) => void>>();

/**
 * The host side of one chute network over its recorded outputs (changed in place by del and SET).
 * Subscribers to hostapd's events get `AP-STA-DISCONNECTED <mac>` when `stationDel` removes a station.
 */
function memoryNetwork(target: NetworkTarget, network: MemoryNetwork | undefined, calls: NetworkCall[]): NetworkHost {
  const call = (operation: NetworkOperation, args: string[] = []): MemoryNetwork => {
    calls.push({ target, operation, args });
    if (network === undefined) throw new HttpProblem(503, `memory device: chute ${target.chute} network ${target.network} has no host resources`);
    const failure = network.fails?.[operation];
    if (failure !== undefined) throw failure;
    return network;
  };
  return {
    async stationDump() {
      return call('stationDump').stationDump ?? '';
    },
    async stationGet(mac) {
      const blocks = stationBlocks(call('stationGet', [mac]).stationDump ?? '');
      return blocks.find((block) => block.mac.toLowerCase() === mac.toLowerCase())?.text ?? null;
    },
    async stationDel(mac) {
      const net = call('stationDel', [mac]);
      const blocks = stationBlocks(net.stationDump ?? '');
      const kept = blocks.filter((block) => block.mac.toLowerCase() !== mac.toLowerCase());
      net.stationDump = kept.map((block) => block.text).join('');
      if (kept.length < blocks.length) for (const listener of eventListeners.get(net) ?? []) listener(`AP-STA-DISCONNECTED ${mac.toLowerCase()}`);
      return kept.length < blocks.length;
    },
    async hostapdEvents(onEvent) {
      const net = call('hostapdEvents');
      let listeners = eventListeners.get(net);
      if (listeners === undefined) eventListeners.set(net, (listeners = new Set()));
      const listener = (text: string) => onEvent(text);
      listeners.add(listener);
      return {
        async stop() {
          listeners.delete(listener);
        },
      };
    },
    async leases() {
      return call('leases').leases ?? null;
    },
    async hostapd(command) {
      const net = call('hostapd', command);
      const [word = '', name, ...value] = command;
      if (word === 'STATUS') return net.hostapdStatus ?? 'FAIL\n';
      if (word === 'GET_CONFIG') return net.hostapdConfig ?? 'FAIL\n';
      const reply = net.hostapdReplies?.[word] ?? 'OK\n';
      if (word === 'SET' && name === 'ssid' && reply.trim() === 'OK') {
        const ssid = encodeSsid(value.join(' '));
        net.hostapdConfig = (net.hostapdConfig ?? '').replace(/^ssid=.*$/m, () => `ssid=${ssid}`);
        net.hostapdStatus = (net.hostapdStatus ?? '').replace(/^ssid\[0\]=.*$/m, () => `ssid[0]=${ssid}`);
      }
      return reply;
    },
  };
}
