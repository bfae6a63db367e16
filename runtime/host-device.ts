import path from 'node:path';
import { DEFAULT_DOCKER_SOCKET, DEFAULT_SNAPD_SOCKET, DEFAULT_STATE_DIR, deferredAudio } from '../functions/core/device/index.ts';
import type { Device, Settings } from '../functions/core/device/index.ts';
import type { ConfigFacetOptions } from './device-config/index.ts';
import type { ChangeLogBound } from './changes/bound.ts';
import { resetGuard } from './changes/reset-guard.ts';
import { chuteStore, JSON_FORMAT } from './chutes/store.ts';
import { eventBuffer, type PublishEvent } from './events/buffer.ts';
import type { EventSource } from './events/sources/index.ts';
import { hostChanges } from './device/host-changes.ts';
import { hostNetworks, networkTools } from './device/host-networks.ts';
import { chutesOnEngine, deviceConfig, engineClient, loadedEngine, type HostParts } from './device/host-parts.ts';
import { hostServices } from './device/host-services.ts';
import { hostSources } from './device/host-sources.ts';
import { hostRecover } from './device/host-recover.ts';
import { DEFAULT_NETWORK_TOOLS, type NetworkTools } from './network/tools.ts';
import { parseSeconds, type OptionSpec } from './options.ts';

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
  /** snapd's REST API socket, which `/snapd/*` is passed on to; default `/run/snapd.socket`. */
  snapdSocket?: string;
  /** The runtime's state folder; its installed chutes are in `<stateDir>/chutes` (JSON). Default `/var/lib/chutebox`. */
  stateDir?: string;
  /** Where `iw` and `hostapd_cli` are and how long they may run; default `iw`, `hostapd_cli` on PATH, 5 s. */
  tools?: Partial<NetworkTools>;
  /** `HostConfig.NetworkMode` of the chute containers it creates; default `bridge`. */
  containerNetwork?: string;
  /** The device configuration's options (passwd file, pdconf apply commands, controller, reboot and shutdown commands): see runtime/device-config/index.ts. */
  config?: Omit<ConfigFacetOptions, 'stateDir' | 'device'>;
  /** What `settings()` answers: the settings the runtime loaded at start. */
  settings?: () => Settings;
  /** `--lab-link`: the Ethernet interface that stands in for radios and LAN ports in tests and labs (runtime/network/chute-networks.ts); none by default. */
  labLink?: string | null;
  /** How many change records `<stateDir>/changes` keeps, and for how long; default `DEFAULT_CHANGE_LOG_BOUND`. */
  changeLog?: ChangeLogBound;
  /** How many events it keeps for clients that reconnect; default `DEFAULT_EVENT_BUFFER`. */
  eventBuffer?: number;
}

/**
 * The flags (and environment variables) that choose how the host Device reaches the engine and the
 * network tools, shared by `chutebox serve` and `chutebox record` so a recording sees what the daemon
 * serves. Read them with `readOptions` and pass the values to `hostDeviceOptions`.
 */
export const HOST_DEVICE_FLAGS = [
  { flag: 'docker-socket', env: 'CHUTEBOX_DOCKER_SOCKET', default: DEFAULT_DOCKER_SOCKET, value: 'PATH', description: 'Docker Engine API socket' },
  {
    flag: 'snapd-socket',
    env: 'CHUTEBOX_SNAPD_SOCKET',
    default: DEFAULT_SNAPD_SOCKET,
    value: 'PATH',
    description: "snapd's REST API socket, which /snapd/* is passed on to",
  },
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
    snapdSocket: values['snapd-socket']!,
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
   * Last, starts the host's sources of events (`startHostEventSources`: hostapd's stations, dnsmasq's
   * leases, the engine's chute states) and waits for their first look; `close` stops them.
   */
  recover(): Promise<void>;
  /**
   * The runtime is stopping: the device configuration stops its commands and waits, a bounded time,
   * for the changes to end and be recorded (`ConfigFacets.close`; one still running then is repaired
   * at the next start, as after a crash).
   */
  close(): Promise<void>;
  /** Reports an event (`eventBuffer`): what the device's sources call, as the change pipeline and the device configuration do. */
  publishEvent: PublishEvent;
};

/**
 * The real host as a Device, composed of its facets (functions/core/device/), each built in
 * runtime/device/: `hostSources` (files from `/`, `uname(2)` and `statfs(2)` from Node, containers
 * from the Docker Engine, installed chutes from the state dir), `hostNetworks` (chute networks through
 * `iw`, `hostapd_cli` and dnsmasq's lease files), `hostChanges` (the one change pipeline: changes to
 * chutes run on the engine, logged in `<stateDir>/changes`), `hostServices` (the device
 * configuration, the image store, `hostFactoryReset`), the chutes' logs from the engine, its events
 * (`eventBuffer`, which the change pipeline and the device configuration publish to), and `hostRecover`
 * at start. The engine client
 * is a separate bundle (`dist/chute-lifecycle.mjs`), loaded on first use (at start only when a chute is stored;
 * see `recover`), as is the device configuration (`dist/device-config.mjs`). Concurrent identical
 * reads share one run in flight (`sharedRuns`): the tool reads of every network's `hostNetwork` and
 * `containers()`; a read that starts after a run ended always gets a new run.
 *
 * @example
 * createHostDevice({ stateDir: '/var/lib/chutebox', tools: { iw: '/usr/sbin/iw', timeoutMs: 2000 } })
 */
export function createHostDevice(options: HostDeviceOptions = {}): HostDevice {
  const stateDir = options.stateDir ?? DEFAULT_STATE_DIR;
  const chutesDir = path.join(stateDir, 'chutes');
  const chutes = chuteStore(chutesDir, JSON_FORMAT);
  const socketPath = options.dockerSocket ?? DEFAULT_DOCKER_SOCKET;
  const engine = engineClient();
  const tools = networkTools(options.tools);
  const events = eventBuffer(Date.now, options.eventBuffer);
  const host: HostParts = {
    stateDir,
    chutesDir,
    chutes,
    socketPath,
    engine,
    chutesOnEngine: chutesOnEngine(engine, {
      stateDir,
      chutesDir,
      chutes,
      socketPath,
      networkMode: options.containerNetwork ?? DEFAULT_CONTAINER_NETWORK,
      labLink: options.labLink ?? null,
      tools,
      device: () => device,
    }),
    config: deviceConfig({ applyCommands: {}, ...options.config, stateDir, device: () => device, publish: events.publish }),
    publish: events.publish,
  };
  const runner = hostChanges(host, options.changeLog);
  /** Holds off a second reset, provisioning and a pdconf reload during a factory reset (the runner holds off changes). */
  const guard = resetGuard();
  /** The factory reset, from its bundle (dist/host-reset.mjs), loaded on the first one. */
  const reset = async () => (await import('./device/host-reset.ts')).hostFactoryReset(host, runner)();
  const { config } = host;
  /** The host's sources of events (stations, leases, chute states), started by `recover`. */
  let sources: Promise<EventSource> | undefined;
  const device: HostDevice = {
    ...hostSources({ socketPath, chutes, engine, settings: options.settings }),
    ...hostNetworks(tools),
    submitChange: runner.submitChange,
    change: runner.change,
    changes: runner.changes,
    ...hostServices({
      socketPath,
      snapdSocket: options.snapdSocket ?? DEFAULT_SNAPD_SOCKET,
      engine,
      config: config.loaded,
      startedConfig: config.started,
      guard,
      reset,
    }),
    chuteLogs: async (chute, options) => (await loadedEngine(engine)).chuteLogs(socketPath, chute, options),
    // pactl's side: runtime/device/host-audio.ts, a bundle loaded on the first audio request.
    audio: deferredAudio(async () => (await import('./device/host-audio.ts')).hostAudio().audio),
    followEvents: events.followEvents,
    publishEvent: events.publish,
    async recover() {
      await hostRecover(host, runner);
      // The real sources of events, from their bundle (dist/event-sources.mjs), once the chutes are repaired: what is there at start is no event.
      sources ??= import('./events/sources/event-sources.entry.ts').then((bundle) =>
        bundle.startHostEventSources({ stateDir, socketPath, chutes: device, network: device.network, engine }, events.publish),
      );
      await (await sources).ready;
    },
    async close() {
      await Promise.all([sources?.then((started) => started.stop()), (await config.ifLoading()?.catch(() => undefined))?.close(runner.idle())]);
    },
  };
  return device;
}
