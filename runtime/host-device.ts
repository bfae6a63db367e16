import { mkdir, readdir, statfs } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CHUTE_LABEL, DEFAULT_STATE_DIR, networkRunDir } from '../functions/core/device.ts';
import type { ChuteAction, Device, DeviceAction, DeviceServices, DeviceSources, Settings } from '../functions/core/device.ts';
import { prepareAuth } from './auth/local.ts';
import type { ConfigFacetOptions, ConfigFacets } from './config/index.ts';
import { HttpProblem } from '../functions/core/problem.ts';
import type { HeldReservations, NetworkChange } from '../functions/chutes/network-reservations.ts';
import type { ChuteNetworks } from './network/chute-networks.ts';
import type { ChangeLogBound } from './changes/bound.ts';
import { CHANGES_DIR } from './changes/log.ts';
import { resetGuard, type ResetGuard } from './changes/reset-guard.ts';
import { changeRunner, chuteEffectsBy, type ChangeEffect } from './changes/runner.ts';
import { chuteStore, JSON_FORMAT } from './chutes/store.ts';
import { rootedFiles } from './device/files.ts';
import { isUnixSocket } from './engine/socket.ts';
import { hostNetwork, type SharedToolRuns } from './network/host.ts';
import { DEFAULT_NETWORK_TOOLS, type NetworkTools } from './network/tools.ts';
import { parseSeconds, type OptionSpec } from './options.ts';
import { sharedRuns } from './tools/shared-run.ts';
import { watchedPath } from './state/watched-file.ts';

export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';
export const DEFAULT_CONTAINER_NETWORK = 'bridge';

/** `--state-dir DIR`, of `chutebox serve` and `chutebox passwd`. */
export const STATE_DIR_OPTION = {
  flag: 'state-dir',
  env: 'CHUTEBOX_STATE_DIR',
  default: DEFAULT_STATE_DIR,
  value: 'DIR',
  description: 'where the runtime keeps its state (created 0700)',
} as const;

export interface HostDeviceOptions {
  /** Docker Engine API socket; default `/var/run/docker.sock`. */
  dockerSocket?: string;
  /** The runtime's state folder; its installed chutes are in `<stateDir>/chutes` (JSON). Default `/var/lib/chutebox`. */
  stateDir?: string;
  /** Where `iw` and `hostapd_cli` are and how long they may run; default `iw`, `hostapd_cli` on PATH, 5 s. */
  tools?: Partial<NetworkTools>;
  /** `HostConfig.NetworkMode` of the chute containers it creates; default `bridge`. */
  containerNetwork?: string;
  /** The device configuration's options (passwd file, pdconf apply commands, controller, reboot and shutdown commands): see runtime/config/index.ts. */
  config?: Omit<ConfigFacetOptions, 'stateDir' | 'device'>;
  /** What `settings()` answers: the settings the runtime loaded at start. */
  settings?: () => Settings;
  /** `--lab-link`: the Ethernet interface that stands in for radios and LAN ports in tests and labs (runtime/network/chute-networks.ts); none by default. */
  labLink?: string | null;
  /** How many change records `<stateDir>/changes` keeps, and for how long; default `DEFAULT_CHANGE_LOG_BOUND`. */
  changeLog?: ChangeLogBound;
}

/**
 * The flags (and environment variables) that choose how the host Device reaches the engine and the
 * network tools, shared by `chutebox serve` and `chutebox record` so a recording sees what the daemon
 * serves. Read them with `readOptions` and pass the values to `hostDeviceOptions`.
 */
export const HOST_DEVICE_FLAGS = [
  { flag: 'docker-socket', env: 'CHUTEBOX_DOCKER_SOCKET', default: DEFAULT_DOCKER_SOCKET, value: 'PATH', description: 'Docker Engine API socket' },
  { flag: 'iw', env: 'CHUTEBOX_IW', default: DEFAULT_NETWORK_TOOLS.iw, value: 'PATH', description: 'iw executable, for the stations of chute networks' },
  {
    flag: 'hostapd-cli',
    env: 'CHUTEBOX_HOSTAPD_CLI',
    default: DEFAULT_NETWORK_TOOLS.hostapdCli,
    value: 'PATH',
    description: "hostapd_cli executable, for hostapd's control sockets",
  },
  {
    flag: 'hostapd-event-program',
    env: 'CHUTEBOX_HOSTAPD_EVENT_PROGRAM',
    default: DEFAULT_NETWORK_TOOLS.eventProgram,
    value: 'PATH',
    description: "the program hostapd_cli -a runs for each of hostapd's events: it must print its arguments as echo does",
  },
  {
    flag: 'tool-timeout',
    env: 'CHUTEBOX_TOOL_TIMEOUT',
    default: String(DEFAULT_NETWORK_TOOLS.timeoutMs / 1000),
    value: 'SECONDS',
    description: 'how long iw or hostapd_cli may run',
    kind: 'number',
  },
] as const satisfies readonly OptionSpec[];

/**
 * HostDeviceOptions from the values of `HOST_DEVICE_FLAGS` and the state dir.
 *
 * @throws UsageError for a bad `--tool-timeout`.
 */
export function hostDeviceOptions(values: Record<(typeof HOST_DEVICE_FLAGS)[number]['flag'], string | undefined>, stateDir: string): HostDeviceOptions {
  return {
    dockerSocket: values['docker-socket']!,
    stateDir,
    tools: {
      iw: values.iw!,
      hostapdCli: values['hostapd-cli']!,
      eventProgram: values['hostapd-event-program']!,
      timeoutMs: parseSeconds(values['tool-timeout']!, 'tool-timeout') * 1000,
    },
  };
}

/** The host Device, and what the runtime does with it once at start. */
export type HostDevice = Device & {
  /**
   * Opens the change log (a change an earlier runtime left `queued` or `running` is marked `failed`),
   * then, when the chutes folder holds anything, loads the engine client to repair what a crash cut
   * short and to set each chute's stored state from the engine (`recoverChutes`). A repair that fails
   * is logged, not thrown. Then starts loading the device configuration (`ConfigFacets.start`: the
   * stored provisioning, pdconf rendered and applied, telemetry started when due) without waiting
   * for it: the device's information is served at once, and what reads the configuration waits (the
   * stored host configuration only for an update a crash cut short to be undone: `ConfigFacets.hostConfig`).
   */
  recover(): Promise<void>;
  /**
   * The runtime is stopping: the device configuration stops its commands and waits, a bounded time,
   * for the changes to end and be recorded (`ConfigFacets.close`; one still running then is repaired
   * at the next start, as after a crash).
   */
  close(): Promise<void>;
};

/**
 * The real host as a Device, composed of its facets (functions/core/device/): `hostSources`, the
 * networks (`hostNetwork`), the change log of the one change pipeline, `hostServices`. Files from `/`, `uname(2)` and `statfs(2)` from Node, containers from the
 * Docker Engine, installed chutes from the state dir, chute networks through `iw`, `hostapd_cli` and
 * dnsmasq's lease files, changes to chutes run on the engine and logged in `<stateDir>/changes`
 * (runtime/changes/runner.ts, runtime/chutes/lifecycle.ts). The engine client is a separate bundle
 * (`dist/engine.mjs`), loaded on first use (at start only when a chute is stored; see `recover`).
 * Concurrent identical reads share one run in flight (`sharedRuns`): the tool reads of every
 * network's `hostNetwork` (one map for the device, as `network()` makes a new object per request)
 * and `containers()`; a read that starts after a run ended always gets a new run.
 *
 * @example
 * createHostDevice({ stateDir: '/var/lib/chutebox', tools: { iw: '/usr/sbin/iw', timeoutMs: 2000 } })
 */
export function createHostDevice(options: HostDeviceOptions = {}): HostDevice {
  const socketPath = options.dockerSocket ?? DEFAULT_DOCKER_SOCKET;
  const tools: NetworkTools = {
    iw: options.tools?.iw ?? DEFAULT_NETWORK_TOOLS.iw,
    hostapdCli: options.tools?.hostapdCli ?? DEFAULT_NETWORK_TOOLS.hostapdCli,
    eventProgram: options.tools?.eventProgram ?? DEFAULT_NETWORK_TOOLS.eventProgram,
    timeoutMs: options.tools?.timeoutMs ?? DEFAULT_NETWORK_TOOLS.timeoutMs,
  };
  /** The tool reads in flight, shared by the `hostNetwork` of every request. */
  const toolRuns: SharedToolRuns = sharedRuns();
  let loading: Promise<typeof import('./engine/engine.entry.ts') | null> | undefined;
  /** The engine client (dist/engine.mjs), loaded once on first use; null (logged) when its bundle cannot be loaded. */
  const engine = () =>
    (loading ??= import('./engine/engine.entry.ts').catch((error: unknown) => {
      console.error('the container engine client (engine.mjs) cannot be loaded:', error);
      return null;
    }));
  const stateDir = options.stateDir ?? DEFAULT_STATE_DIR;
  const chutesDir = path.join(stateDir, 'chutes');
  const chutes = chuteStore(chutesDir, JSON_FORMAT);
  let configLoading: Promise<ConfigFacets> | undefined;
  /** The device configuration (dist/device-config.mjs), loaded once on first use. */
  const config = () =>
    (configLoading ??= import('./config/index.ts').then((bundle) =>
      bundle.configFacets({ applyCommands: {}, ...options.config, stateDir, device: () => device }),
    ));
  let configStarting: Promise<ConfigFacets> | undefined;
  /**
   * The device configuration once started (`ConfigFacets.start`: an update cut short undone, pdconf
   * rendered and applied, telemetry started), which happens once: `recover` starts it without
   * waiting, so the API listens meanwhile, and whatever reads the configuration waits for it. The
   * accounts need no start (`chutebox record` reads them without starting anything).
   */
  const startedConfig = () =>
    (configStarting ??= config().then(async (facets) => {
      await facets.start();
      return facets;
    }));
  /** The reservations of the chutes' networks, one change at a time (made with the engine bundle, which has the code). */
  let ledger: ((change: NetworkChange) => Promise<HeldReservations>) | undefined;
  /** The host side of the chutes' networks, one for the runtime's life: it supervises their daemons. */
  let networks: ChuteNetworks | undefined;
  const hostNetworks = (client: NonNullable<Awaited<ReturnType<EngineClient>>>) =>
    (networks ??= client.chuteNetworks({
      runDir: networkRunDir(stateDir),
      labLink: options.labLink ?? null,
      radio: client.deviceRadios(device),
      tools: {
        ip: 'ip',
        iw: options.tools?.iw ?? DEFAULT_NETWORK_TOOLS.iw,
        hostapd: 'hostapd',
        dnsmasq: 'dnsmasq',
        nsenter: 'nsenter',
        nft: 'nft',
        iptables: 'iptables',
        timeoutMs: options.tools?.timeoutMs ?? DEFAULT_NETWORK_TOOLS.timeoutMs,
      },
    }));
  /** The effect of a chute action, from the engine bundle (loaded on the first change); the host configuration renders the chute's networks after it. */
  const onChute =
    <A extends ChuteAction>(action: A): ChangeEffect<A> =>
    async (request, note, id) => {
      const client = await engine();
      if (client === null) throw new Error('the container engine client cannot be loaded');
      const networkMode = options.containerNetwork ?? DEFAULT_CONTAINER_NETWORK;
      const effects = client.chuteEffects({
        chutes,
        writer: client.chuteWriter(chutesDir),
        engine: () => client.chuteEngine(socketPath),
        networkMode,
        reserve: (change) => (ledger ??= client.networkLedger(device))(change),
        networks: hostNetworks(client),
      });
      const after = await (effects[action] as ChangeEffect<A>)(request, note, id);
      // The chutes' networks are part of the system configuration.
      if (action !== 'start' && action !== 'stop' && action !== 'restart') await (await startedConfig()).hostConfig.refresh();
      return after;
    };
  /** The effect of a change of the device itself, from the configuration bundle. */
  const onDevice =
    <A extends DeviceAction>(action: A): ChangeEffect<A> =>
    async (request, note, id) =>
      ((await startedConfig()).effects[action] as ChangeEffect<A>)(request, note, id);
  const changesDir = path.join(stateDir, CHANGES_DIR);
  const runner = changeRunner({
    // The change log's files (dist/change-log.mjs), loaded when the log is first opened.
    openLog: () => import('./changes/log.ts').then((log) => log.openChangeLog(changesDir, Date.now)),
    bound: options.changeLog,
    effects: {
      ...chuteEffectsBy(onChute),
      'update-hostconfig': onDevice('update-hostconfig'),
      reboot: onDevice('reboot'),
      shutdown: onDevice('shutdown'),
    },
  });
  /** Removes every container that carries the chute label; answers how many chutes were stored. */
  async function removeChuteContainers(): Promise<number> {
    const stored = (await chutes.chuteNames()).length;
    const client = await engine();
    const reachable = client === null ? null : await client.reachableChuteEngine(socketPath);
    if (reachable === null) {
      if (stored > 0) throw new HttpProblem(503, 'no container engine is reachable: the chutes cannot be removed, so nothing was reset');
      return 0;
    }
    for (const container of await reachable.listAll()) {
      const labels = container.Labels as Record<string, string>;
      await reachable.remove(labels[CHUTE_LABEL]!, String(container.Id));
    }
    return stored;
  }
  /** Holds off a second reset, provisioning and a pdconf reload during a factory reset (the runner holds off changes). */
  const guard = resetGuard();
  async function reset() {
    const facets = await startedConfig();
    return runner.exclusive(
      () =>
        facets.factoryReset({
          removeChuteContainers,
          async prepareState() {
            await prepareAuth(stateDir);
            // What `runner.open()` makes at start (the reset keeps it, emptied but for the next change id); the runner reads it again after the reset.
            await mkdir(path.join(stateDir, CHANGES_DIR), { recursive: true, mode: 0o700 });
          },
        }),
      true,
    );
  }
  const device: HostDevice = {
    ...hostSources({ socketPath, chutes, engine, settings: options.settings }),
    network: (target) => hostNetwork(target, tools, toolRuns),
    submitChange: runner.submitChange,
    change: runner.change,
    changes: runner.changes,
    ...hostServices({ socketPath, engine, config, startedConfig, guard, reset }),
    async recover() {
      const interrupted = await runner.open();
      if ((await readdir(chutesDir).catch(() => [])).length > 0) {
        const client = await engine();
        const repair = client?.recoverChutes({
          dir: chutesDir,
          engine: await client.reachableChuteEngine(socketPath),
          interrupted,
          annotate: runner.annotate,
          change: runner.change,
        });
        await repair?.catch((error: unknown) => console.error('repairing the chutes at start failed:', error));
        if (client !== null) {
          const reachable = await client.reachableChuteEngine(socketPath);
          const stored = (await Promise.all((await chutes.chuteNames()).map((name) => chutes.chute(name)))).filter((chute) => chute !== null);
          await hostNetworks(client).repair(stored, async (name) => (reachable === null ? null : client.runningPid(reachable, name)));
        }
      }
      startedConfig().catch((error: unknown) => console.error('the device configuration cannot be started:', error));
    },
    async close() {
      await (await configLoading?.catch(() => undefined))?.close(runner.idle());
    },
  };
  return device;
}

/** The engine client bundle (dist/engine.mjs), loaded on first use; null when it cannot be loaded. */
type EngineClient = () => Promise<typeof import('./engine/engine.entry.ts') | null>;

/**
 * The host's raw sources: files from `/`, `statfs(2)` and `uname(2)` from Node, the programs on the
 * PATH, the engine's JSON (concurrent lists share one request; no socket, no engine, and the client is
 * not even loaded), the chutes of the state dir, the settings loaded at start.
 */
function hostSources(options: {
  socketPath: string;
  chutes: Pick<DeviceSources, 'chuteNames' | 'chute'>;
  engine: EngineClient;
  settings: (() => Settings) | undefined;
}): DeviceSources {
  const { socketPath, engine } = options;
  /**
   * Whether an engine listens on the socket: a stat, made again only after the socket's folder
   * changed (the engine started or stopped).
   */
  const engineListening = watchedPath(socketPath, isUnixSocket);
  /** The engine's list of chute containers in flight, shared by concurrent `containers()` calls. */
  const containerLists = sharedRuns<Record<string, unknown>[] | null>();
  /**
   * The known programs on the runtime's PATH, looked up on the first call (not at start, and with the
   * engine bundle's code, where the chute networks that need them are built) and kept for the
   * runtime's life: later calls answer this same promise, with no file access (features asks on every
   * request). A program installed meanwhile shows after a restart of `chutebox serve`.
   */
  let programsFound: Promise<readonly string[]> | undefined;
  return {
    ...rootedFiles('/'),
    ...options.chutes,
    async statfs(path) {
      try {
        const s = await statfs(path);
        return { type: s.type, bsize: s.bsize, blocks: s.blocks, bfree: s.bfree, bavail: s.bavail, files: s.files, ffree: s.ffree };
      } catch {
        return null;
      }
    },
    async uname() {
      return { sysname: os.type(), release: os.release(), version: os.version(), machine: os.machine() };
    },
    programs: () => (programsFound ??= engine().then((client) => client?.programsOnPath(process.env.PATH ?? '') ?? [])),
    now: () => Date.now(),
    containers: async () =>
      (await engineListening())
        ? containerLists.run(socketPath, async () => {
            const client = await engine();
            return client === null ? null : client.listChuteContainers(socketPath);
          })
        : null,
    async containerStats(id) {
      const client = await engine();
      return client === null ? null : client.containerStats(socketPath, id);
    },
    settings: async () => options.settings?.() ?? {},
  };
}

/**
 * The host's services: the device configuration's (host configuration, provisioning, accounts), from
 * its bundle, refused during a factory reset where a device refuses them; the image store of the
 * engine; the factory reset.
 */
function hostServices(options: {
  socketPath: string;
  engine: EngineClient;
  /** The device-configuration bundle, loaded (the accounts need no start). */
  config: () => Promise<ConfigFacets>;
  /** The same, once started. */
  startedConfig: () => Promise<ConfigFacets>;
  guard: ResetGuard;
  reset: DeviceServices['factoryReset'];
}): DeviceServices {
  const { config, startedConfig, guard, engine, socketPath } = options;
  return {
    hostConfig: {
      read: async () => (await config()).hostConfig.read(),
      pdconf: async () => (await startedConfig()).hostConfig.pdconf(),
      reloadPdconf: async () => (guard.refuse(), (await startedConfig()).hostConfig.reloadPdconf()),
    },
    provisioning: {
      status: async () => (await startedConfig()).provisioning.status(),
      provision: async (credentials) => (guard.refuse(), (await startedConfig()).provisioning.provision(credentials)),
    },
    accounts: {
      passwd: async () => (await config()).accounts.passwd(),
      authorizedKeys: async (account) => (await config()).accounts.authorizedKeys(account),
      updateAuthorizedKeys: async (account, update) => (await config()).accounts.updateAuthorizedKeys(account, update),
    },
    factoryReset: () => guard.run(options.reset),
    async loadImage(archive) {
      const client = await engine();
      if (client === null) throw new HttpProblem(503, 'the container engine client cannot be loaded');
      try {
        return await client.loadImage(socketPath, archive);
      } catch (error) {
        const { statusCode, message } = error as { statusCode?: number; message: string };
        if (statusCode === undefined) throw new HttpProblem(503, `no container engine is reachable: ${message}`);
        if (statusCode < 500) throw new HttpProblem(422, 'the container engine refused the image archive', { errors: [{ path: 'body', message }] });
        throw new HttpProblem(502, `the container engine failed to load the image archive: ${message}`);
      }
    },
  };
}
