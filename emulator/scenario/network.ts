import { CHUTE_NAME, type Device } from '../../functions/core/device/index.ts';
import type { PublishEvent } from '../../runtime/events/buffer.ts';
import { NETWORK_FILES, networkDir } from '../../runtime/scenario/format.ts';
import { recordedNetworks, type NetworkHooks, type NetworkLife, type RecordedNetworks } from './recorded-networks.ts';
import type { ScenarioClock } from './clock.ts';

/**
 * The chute networks of a scenario, answered from the raw recordings in
 * `chutes/<chute>/networks/<network>/` (`NETWORK_FILES`) as `recordedNetworks` answers them: station
 * dump, leases (their expiries moved to the emulator's `clock` when given), hostapd's `STATUS`,
 * `GET_CONFIG`, `SET ssid`, `RELOAD`, `PING`, and the events the emulator causes (hostapd's, and those it
 * publishes as the device's); given a `life`, its access points live (`recordedNetworks`).
 *
 * What stations are removed and which SSID is set lives in this emulator process only (`snapshot()`
 * shows it, `restore()` sets it: see `recordedNetworks`): a restart serves the recordings as they are. The
 * recordings are read through the scenario's raw `files` (`scenarioFiles`, which reads each once and
 * keeps it in memory, or `treeFiles` of a compiled scenario); the clock's shift of the lease expiries is
 * worked out on each call. A chute or network whose name is not a valid `CHUTE_NAME` has no recordings
 * (it never becomes a path).
 *
 * @example
 * const network = scenarioNetworks(scenarioFiles('fixtures/scenarios/default'));
 * await network({ chute: 'hello-world', network: 'wifi', … }).hostapd(['SET', 'ssid', 'lab']); // 'OK\n'
 */
export function scenarioNetworks(
  files: Pick<Device, 'readFile'>,
  clock?: Pick<ScenarioClock, 'leases'>,
  publish?: PublishEvent,
  life?: (hooks: NetworkHooks) => NetworkLife,
): RecordedNetworks {
  /** A recording's text by its path in the scenario (`networkDir(…)/<file>`); null when there is none. */
  const read = (file: string) => files.readFile(`/${file}`);
  return recordedNetworks(
    ({ chute, network }, recording) =>
      // Handlers validate the names first; anything else has no recordings rather than a path.
      CHUTE_NAME.test(chute) && CHUTE_NAME.test(network) ? read(`${networkDir(chute, network)}/${NETWORK_FILES[recording]}`) : Promise.resolve(null),
    clock,
    publish,
    life,
  );
}
