import { recordedReservations } from '../../functions/chutes/network-reservations.ts';
import { CHUTE_NAME, type Device, type StoredChute } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import type { PublishEvent } from '../../runtime/events/buffer.ts';
import { NETWORK_FILES, networkDir } from '../../runtime/scenario/format.ts';
import { kept } from './tree.ts';
import { installedRecordings, sameNetwork, type EmulatedRadio, type InstalledRecordings } from './installed-networks.ts';
import { recordedNetworks, type NetworkHooks, type NetworkLife, type NetworkRecording, type RecordedNetworks } from './recorded-networks.ts';
import type { ScenarioClock } from './clock.ts';

/** The chutes the networks belong to: as the scenario recorded them and as installed now, and the device's radios. */
export interface NetworkChutes {
  /** A chute as the scenario recorded it; null when the scenario has no such chute. */
  recorded(name: string): Promise<StoredChute | null>;
  /** A chute as installed now (changes install, update and delete them); null when there is none. */
  current(name: string): Promise<StoredChute | null>;
  /** A radio of the device by its id (`pci-wifi-0`), as a network would be made on it now; null when there is none. */
  radio(id: string): Promise<EmulatedRadio | null>;
}

/**
 * The chute networks of a scenario, answered as `recordedNetworks` answers them: station dump, leases
 * (their expiries moved to the emulator's `clock` when given), hostapd's `STATUS`, `GET_CONFIG`,
 * `SET ssid`, `RELOAD`, `PING`, and the events the emulator causes (hostapd's, and those it publishes
 * as the device's). Their raw texts are:
 * - the recordings in `chutes/<chute>/networks/<network>/` (`NETWORK_FILES`) while the network is as
 *   the scenario recorded it (its `net` entry and reservation alike);
 * - with `chutes`, for a network the scenario did not record so (a chute installed or updated through
 *   the API), what serve would run for it (`installedRecordings`): hostapd's replies for the
 *   hostapd.conf serve writes, with the settings its radio has now, an empty lease file, no station.
 *
 * Given a `life`, the access points live (`recordedNetworks`): stations come and go on them.
 *
 * What stations are removed and which SSID is set lives in this emulator process only (`snapshot()`
 * shows it, `restore()` sets it, `forget()` drops it: see `recordedNetworks`): a restart serves the
 * recordings as they are. The recordings are read through the scenario's raw `files` on each call (which
 * keep what they read: a fleet's device rewrites them as they are read, and keeps nothing); the clock's
 * shift of the lease expiries is worked out on each call. A chute or network whose name is not
 * a valid `CHUTE_NAME` has no recordings (it never becomes a path).
 *
 * @example
 * const network = scenarioNetworks(scenarioFiles('fixtures/scenarios/default'));
 * await network({ chute: 'hello-world', network: 'wifi', … }).hostapd(['SET', 'ssid', 'lab']); // 'OK\n'
 */
export function scenarioNetworks(
  files: Pick<Device, 'readFile'>,
  clock?: Pick<ScenarioClock, 'leases'>,
  publish?: PublishEvent,
  chutes?: NetworkChutes,
  life?: (hooks: NetworkHooks) => NetworkLife,
): RecordedNetworks {
  /** A recording's text by its path in the scenario (`networkDir(…)/<file>`); null when there is none. */
  const recording = (file: string) => files.readFile(`/${file}`);
  const installed = chutes === undefined ? undefined : installedTexts(chutes);
  return recordedNetworks(
    async ({ chute, network }, name) => {
      // Handlers validate the names first; anything else has no recordings rather than a path.
      if (!CHUTE_NAME.test(chute) || !CHUTE_NAME.test(network)) return null;
      const texts = await installed?.(chute, network);
      if (texts === undefined) return recording(`${networkDir(chute, network)}/${NETWORK_FILES[name]}`);
      const text = texts[name as NetworkRecording];
      if (text instanceof HttpProblem) throw text;
      return text ?? null;
    },
    clock,
    publish,
    life,
  );
}

/**
 * The texts of what serve would run for a chute's network as installed now, or undefined when the
 * scenario's recordings answer for it (it is as recorded, or no chute has it). Worked out once for each
 * chute as changes left it (a frozen object, replaced by each change) and each set of radio settings.
 */
function installedTexts(chutes: NetworkChutes) {
  /** Per chute as changes left it: whether each network is as recorded, and the texts of each network and radio. */
  const answers = new WeakMap<StoredChute, { asRecorded: Map<string, boolean>; texts: Map<string, InstalledRecordings> }>();
  return async (name: string, network: string): Promise<InstalledRecordings | undefined> => {
    const chute = await chutes.current(name);
    if (chute === null) return undefined;
    let memo = answers.get(chute);
    if (memo === undefined) answers.set(chute, (memo = { asRecorded: new Map(), texts: new Map() }));
    let asRecorded = memo.asRecorded.get(network);
    if (asRecorded === undefined) {
      const recorded = await chutes.recorded(name);
      memo.asRecorded.set(network, (asRecorded = recorded !== null && sameNetwork(recorded, chute, network)));
    }
    if (asRecorded) return undefined;
    const id = recordedReservations(chute.cache)[network]?.radio ?? null;
    const radio = id === null ? null : await chutes.radio(id);
    return kept(memo.texts, `${network}\0${JSON.stringify(radio)}`, () => installedRecordings(chute, network, radio));
  };
}
