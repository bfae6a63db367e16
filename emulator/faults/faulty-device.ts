import { DEFAULT_DOCKER_SOCKET, type Device } from '../../functions/core/device/index.ts';
import { engineUnreachable, engineUnreachableAt, noEngineAt, RESET_WITHOUT_ENGINE } from '../../runtime/engine/unreachable.ts';
import { DEFAULT_TIMEOUT_MS } from '../../runtime/tools/limits.ts';
import type { DeviceFault } from './device-fault.ts';
import { faultyNetworks } from './network-faults.ts';
import { radioFiles } from './radios.ts';
import { rebootsOf } from './reboot.ts';
import { checkDiskSpace, faultActive } from './storage-and-controller.ts';

/** How a faulty device answers where serve's answer depends on its settings. */
export interface FaultyDeviceOptions {
  /** How long iw or hostapd_cli may run before serve stops it (`--tool-timeout`): what a hanging tool is waited for; default 5 s. */
  toolTimeoutMs?: number;
}

/** A Device under device faults, and whether a reboot keeps it silent. */
export type FaultyDevice = Device & {
  /** Whether a `reboot` is under way: the device answers no request (the emulator's app drops them). */
  rebooting(): boolean;
};

/**
 * The emulated `device` under the device faults `active()` answers at each call, each facet answering
 * what serve answers in the same real situation (docs/decisions/0052-device-faults-as-serve-answers-them.md):
 * - `hostapd-down`, `radio-gone`, `iw-hang`, `hostapd-cli-hang`: the chute networks (`faultyNetworks`),
 *   and for a radio gone its files (`radioFiles`);
 * - `engine-unreachable`: no containers nor stats (a chute's state is its stored one), a chute's log and
 *   an image load a 503 naming the socket, a factory reset with chutes a 503 (chute changes fail in
 *   the emulated change runner, `ENGINE_UNREACHABLE`);
 * - `disk-full`: every write fails with ENOSPC before anything changes: a change (its record cannot
 *   be written), a pdconf reload, an SSH key (provisioning's store fails in `scenarioProvisioning`);
 * - `reboot`: /proc/uptime and /proc/stat count from the last boot (`rebootsOf`), and `rebooting()`
 *   says when the device answers nothing.
 * `controller-unreachable` is the controller's fetch (`unreachableController`). Without an active
 * fault every call is the device's own.
 *
 * @example
 * const faults: DeviceFault[] = [];
 * const device = faultyDevice(scenario.device, () => faults);
 * faults.push({ device: 'engine-unreachable' });
 * await device.containers(); // null
 */
export function faultyDevice(device: Device, active: () => readonly DeviceFault[], options: FaultyDeviceOptions = {}): FaultyDevice {
  const engineDown = () => faultActive(active, 'engine-unreachable');
  const diskFull = () => checkDiskSpace(active);
  const reboots = rebootsOf(device, active, () => device.now());
  return {
    // A key before the spreads, which hold no rebooting: one hidden class for every device (docs/performance.md#objects-made-per-device).
    rebooting: () => reboots.silent(),
    ...device,
    ...radioFiles({ readFile: reboots.files.readFile, readDir: device.readDir, realPath: device.realPath }, active),
    network: faultyNetworks(device, active, options.toolTimeoutMs ?? DEFAULT_TIMEOUT_MS),
    containers: () => (engineDown() ? Promise.resolve(null) : device.containers()),
    containerStats: (id) => (engineDown() ? Promise.resolve(null) : device.containerStats(id)),
    chuteLogs: (chute, logOptions) => (engineDown() ? Promise.reject(engineUnreachableAt(DEFAULT_DOCKER_SOCKET)) : device.chuteLogs(chute, logOptions)),
    loadImage: (archive) => (engineDown() ? Promise.reject(engineUnreachable(noEngineAt(DEFAULT_DOCKER_SOCKET))) : device.loadImage(archive)),
    async factoryReset() {
      if (engineDown() && (await device.chuteNames()).length > 0) throw engineUnreachable(RESET_WITHOUT_ENGINE);
      return device.factoryReset();
    },
    async submitChange(request) {
      diskFull();
      return device.submitChange(request);
    },
    hostConfig: {
      ...device.hostConfig,
      async reloadPdconf() {
        diskFull();
        return device.hostConfig.reloadPdconf();
      },
    },
    accounts: {
      ...device.accounts,
      updateAuthorizedKeys: (account, update) =>
        device.accounts.updateAuthorizedKeys(account, (current) => {
          const next = update(current);
          if (next !== null) diskFull();
          return next;
        }),
    },
  };
}
