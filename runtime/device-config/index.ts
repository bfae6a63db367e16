/**
 * The device configuration of the runtime (`dist/device-config.mjs`): host configuration and pdconf,
 * provisioning and telemetry, system accounts, factory reset, reboot and shutdown. A bundle of its own because it carries
 * a YAML parser, larger than the runtime bundle's budget (docs/bundles.md): the host Device
 * (`runtime/device/host-parts.ts`) loads it on first use, and at start.
 */
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateHostConfig, telemetrySettings } from '../../functions/config/host-config.ts';
import type { Device, DeviceAction } from '../../functions/core/device/index.ts';
import type { ChangeEffect, ChangeEffects } from '../changes/runner.ts';
import type { PublishEvent } from '../events/buffer.ts';
import { controllerClient } from '../controller/client.ts';
import { telemetryReport } from '../controller/telemetry.ts';
import { hostAccounts } from './accounts.ts';
import { factoryReset, type FactoryResetOptions } from './factory-reset.ts';
import { hostConfigStore, type HostConfigService } from './host-config.ts';
import type { ApplyCommands } from './pdconf.ts';
import { powerChanges, type PowerCommands } from './power.ts';
import { fileProvisionStore, PROVISION_FILE, provisioning, type ProvisioningService } from './provisioning.ts';
import { runtimeUpdate } from './runtime-release.ts';
import { STOP_GRACE_MS } from '../tools/run-until.ts';
import { daemonLog } from '../log/log.ts';

export interface ConfigFacetOptions {
  stateDir: string;
  /** The whole host Device: the hardware that new-config reads, the chutes pdconf renders, the telemetry report. */
  device: () => Device;
  /** The passwd database (setting `passwd_file`; default `/etc/passwd`). */
  passwdFile?: string;
  /** pdconf's apply command per file (settings `pdconf_apply_<file>`) and how long each may run. */
  applyCommands: ApplyCommands;
  applyTimeoutMs?: number;
  /** How long the controller has to answer (setting `controller_timeout`). */
  controllerTimeoutMs?: number;
  /** Telemetry reports kept for delivery (setting `telemetry_queue_size`). */
  telemetryQueueSize?: number;
  /** The commands that reboot and shut down the device (settings `reboot_command`, `shutdown_command`); none by default. */
  powerCommands?: PowerCommands;
  /** Reports the device's events: host configurations applied, deliveries to the controller. */
  publish?: PublishEvent;
}

/** The changes of the device itself, not of a chute: a host configuration, chutebox's own release, a reboot, a shutdown. */
export type DeviceEffects = Pick<ChangeEffects, DeviceAction>;

/** What the host Device gets from this bundle. */
export interface ConfigFacets {
  /**
   * The host configuration. Its `read` first waits for an update a crash cut short to be undone (the
   * start's first step): the stored configuration is then the one in effect or being applied, and is
   * answered without waiting for an apply.
   */
  hostConfig: HostConfigService;
  provisioning: ProvisioningService;
  accounts: Device['accounts'];
  /**
   * What the changes of the device itself do: apply a host configuration (`HostConfigService.perform`,
   * answering what removes its rollback once the change's `succeeded` is saved), reboot or shut down
   * (`powerChanges`), take chutebox's release from the controller (`runtimeUpdate`). Once `close` was
   * called, one that begins does nothing and fails.
   */
  effects: DeviceEffects;
  /**
   * Removes what writes of SSH keys that a crash cut short left in the accounts' `~/.ssh`
   * (`HostAccounts.removeInterruptedWrites`), loads the stored provisioning, undoes a host
   * configuration update a crash cut short, renders and applies pdconf (failures are logged), and
   * starts telemetry when due.
   * Once: a second call answers the first.
   */
  start(): Promise<void>;
  /**
   * The runtime is stopping: stops the pdconf apply commands under way and starts none (`runToolUntil`:
   * SIGTERM, SIGKILL after `STOP_GRACE_MS`), fails a device change that begins from now on, waits up
   * to `CHANGES_STOP_MS` for `changesOver` (the change runner idle: the update an apply belonged to
   * recorded), then for a start still running, and stops sending telemetry. A reboot or shutdown
   * command under way is not stopped: it is what stops the runtime (decision 0016).
   */
  close(changesOver: Promise<void>): Promise<void>;
  factoryReset(options: Pick<FactoryResetOptions, 'removeChuteContainers' | 'prepareState'>): ReturnType<typeof factoryReset>;
}

/** How long a stopping runtime waits for its changes to end: an apply command stopped with it ends within its grace period. */
const CHANGES_STOP_MS = STOP_GRACE_MS + 2000;

/**
 * The configuration facets of the host Device over its state dir; the telemetry sender follows every
 * host configuration applied.
 *
 * @example
 * const facets = configFacets({ stateDir: '/var/lib/chutebox', device: () => device, applyCommands: {} });
 * await facets.start();
 */
export function configFacets(options: ConfigFacetOptions): ConfigFacets {
  const device = options.device;
  /** Aborted by `close()`: stops the apply commands, and the device changes that begin. */
  const stopping = new AbortController();
  const service: ProvisioningService = provisioning({
    store: fileProvisionStore(path.join(options.stateDir, PROVISION_FILE)),
    client: controllerClient({ ...(options.controllerTimeoutMs === undefined ? {} : { timeoutMs: options.controllerTimeoutMs }) }),
    report: () => telemetryReport(device()),
    ...(options.telemetryQueueSize === undefined ? {} : { queueSize: options.telemetryQueueSize }),
    publish: options.publish,
  });
  const hostConfig = hostConfigStore({
    stateDir: options.stateDir,
    chutes: { chuteNames: () => device().chuteNames(), chute: (name) => device().chute(name) },
    pdconf: {
      applyCommands: options.applyCommands,
      ...(options.applyTimeoutMs === undefined ? {} : { timeoutMs: options.applyTimeoutMs }),
      stop: stopping.signal,
    },
    generate: () => generateHostConfig(device()),
    onApplied: (config) => service.configure(telemetrySettings(config)),
    changes: { change: (id) => device().change(id) },
    publish: options.publish,
  });
  const accounts = hostAccounts({ ...(options.passwdFile === undefined ? {} : { passwdFile: options.passwdFile }) });
  const power = powerChanges({ commands: options.powerCommands ?? {} });
  let recovering: Promise<void> | undefined;
  /** Undoes, once, a host configuration update a crash cut short (`HostConfigService.recover`). */
  const recover = () =>
    (recovering ??= hostConfig.recover().then((undone) => {
      if (undone) daemonLog.warn('a host configuration update was cut short: the one before it is back');
    }));
  let starting: Promise<void> | undefined;
  async function start() {
    await accounts.removeInterruptedWrites();
    await service.ready();
    await recover();
    const report = await hostConfig.refresh();
    for (const failure of report.failures) daemonLog.error(`host configuration: at start, ${failure}`);
    service.configure(telemetrySettings(await hostConfig.current()));
  }
  return {
    hostConfig: { ...hostConfig, read: () => recover().then(hostConfig.read) },
    provisioning: service,
    effects: unlessStopping(stopping.signal, {
      'update-hostconfig': (request, note, id) => hostConfig.perform(request, note, id),
      'update-runtime': runtimeUpdate({ stateDir: options.stateDir, provisioning: service }),
      reboot: power,
      shutdown: power,
    }),
    accounts,
    start: () => (starting ??= start()),
    async close(changesOver) {
      stopping.abort();
      await Promise.race([changesOver, sleep(CHANGES_STOP_MS, undefined, { ref: false })]);
      // A start still running (pdconf rendered and applied) ends first: nothing writes after close.
      await starting?.catch(() => undefined);
      service.stop();
    },
    factoryReset: (reset) => factoryReset({ stateDir: options.stateDir, hostConfig, provisioning: service, ...reset }),
  };
}

/**
 * The device's change effects, each failing at once, doing nothing, once `stop` is aborted: a change
 * that begins while the runtime stops (it was queued) runs no command that would outlive the runtime.
 */
function unlessStopping(stop: AbortSignal, effects: DeviceEffects): DeviceEffects {
  const guarded =
    <A extends DeviceAction>(effect: ChangeEffect<A>): ChangeEffect<A> =>
    (request, note, id) =>
      stop.aborted ? Promise.reject(new Error('the runtime is stopping: the change did nothing')) : effect(request, note, id);
  return {
    'update-hostconfig': guarded(effects['update-hostconfig']),
    'update-runtime': guarded(effects['update-runtime']),
    reboot: guarded(effects.reboot),
    shutdown: guarded(effects.shutdown),
  };
}
