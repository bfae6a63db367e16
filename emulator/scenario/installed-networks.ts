import type { AccessPointEntry } from '../../functions/chutes/chute-config.ts';
import { mapping } from '../../functions/chutes/chute-record.ts';
import { recordedReservations, type NetworkReservation, type ReservationSources } from '../../functions/chutes/network-reservations.ts';
import type { WifiRadioConfig } from '../../functions/config/host-config.ts';
import type { StoredChute } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { readRadios } from '../../functions/info/wifi.ts';
import { hostapdConfig } from '../../runtime/network/chute-daemons.ts';
import { deviceRadios } from '../../runtime/network/chute-networks.ts';
import { draw } from '../seeded.ts';
import { hostapdReplies } from './hostapd-replies.ts';
import type { NetworkRecording } from './recorded-networks.ts';

/** A radio of the emulated device as a network is made on it: its phy, its MAC and its settings in the host configuration in effect. */
export interface EmulatedRadio {
  phy: string;
  macAddr: string;
  settings: WifiRadioConfig;
}

/**
 * The raw texts of what serve would run for a chute's network, by recording: a text, or the problem
 * a device answers because serve could not start that part (hostapd).
 */
export type InstalledRecordings = Readonly<Partial<Record<NetworkRecording, string | HttpProblem>>>;

/**
 * What a chute's network answers on a device right after serve made it (runtime/network/
 * chute-networks.ts `up`), for the network's `net` entry and its reservation in the chute cache:
 * - an access point: hostapd's `STATUS` and `GET_CONFIG` for the hostapd.conf serve writes
 *   (`hostapdConfig`, with the settings of the radio the reservation names, `radio`), a BSS whose
 *   address is the radio's made locally administered for its interface (`bssidOf`); no station yet
 *   (an empty iw station dump and `all_sta`). When serve could not start hostapd (the radio is gone,
 *   the entry has no SSID), each of hostapd's texts is the 503 of a missing control socket, naming why;
 * - a network with `dhcp`: dnsmasq's lease file, empty;
 * - a monitor interface, or a network without a reservation: nothing.
 *
 * @example
 * installedRecordings(chute, 'wlan', { phy: 'phy0', macAddr: '04:f0:21:34:5a:9e', settings })
 * // { hostapdConfig: 'bssid=06:f0:21:34:…\nssid=My Lab\n…', hostapdStatus: 'state=ENABLED\n…', stationDump: '', hostapdStations: '', leases: '' }
 */
export function installedRecordings(chute: StoredChute, network: string, radio: EmulatedRadio | null): InstalledRecordings {
  const entry = mapping(mapping(chute.config.net)[network]);
  const reservation = recordedReservations(chute.cache)[network];
  if (reservation === undefined || (entry.type === 'wifi' && entry.mode === 'monitor')) return {};
  const leases = entry.dhcp !== undefined && reservation.leaseFile !== null ? { leases: '' } : {};
  if (entry.type !== 'wifi') return leases;
  let replies: { config: string; status: string } | HttpProblem;
  try {
    if (radio === null) throw new Error(`radio ${reservation.radio} is not on this device or not in its host configuration`);
    const { channel, hwmode, htmode, country } = radio.settings;
    const conf = hostapdConfig(entry as AccessPointEntry, reservation, {
      kind: 'radio',
      channel,
      hwmode,
      htmode,
      country: typeof country === 'string' ? country : undefined,
    });
    replies = hostapdReplies(conf, { phy: radio.phy, bssid: bssidOf(radio.macAddr, reservation.hostInterface) });
  } catch (error) {
    replies = notStarted(reservation, (error as Error).message);
  }
  if (replies instanceof HttpProblem) return { ...leases, hostapdConfig: replies, hostapdStatus: replies, hostapdStations: replies, stationDump: '' };
  return { ...leases, hostapdConfig: replies.config, hostapdStatus: replies.status, hostapdStations: '', stationDump: '' };
}

/**
 * The emulated device's radios as serve finds one when it makes a network (`deviceRadios`: its phy and
 * its settings in the host configuration in effect), with its MAC (`readRadios`); null for a radio
 * it does not have. `device` is asked for when a radio is.
 */
export function emulatedRadios(device: () => ReservationSources): (id: string) => Promise<EmulatedRadio | null> {
  return async (id) => {
    const [found, radios] = await Promise.all([deviceRadios(device())(id), readRadios(device())]);
    const macAddr = radios.find((radio) => radio.id === id)?.macAddr;
    return found === null || macAddr === undefined ? null : { phy: found.phy, macAddr, settings: found.settings };
  };
}

/**
 * Whether a chute's network is the same in `a` and `b`: the same `net` entry and the same reservation,
 * so that serve runs the same hostapd and dnsmasq for it (an update that leaves it so restarts neither).
 * Reservations are compared as read (`recordedReservations`): a recorded cache that leaves out fields
 * an update writes (`radio`, `vlanId`) holds the same reservation.
 */
export function sameNetwork(a: StoredChute, b: StoredChute, network: string): boolean {
  const of = (chute: StoredChute) => JSON.stringify([mapping(chute.config.net)[network], recordedReservations(chute.cache)[network] ?? null]);
  return a === b || of(a) === of(b);
}

/** The networks of `before` that are gone or made anew in `after` (every one when the chute is gone). */
export function rebuiltNetworks(before: StoredChute, after: StoredChute | null): string[] {
  return Object.keys(mapping(before.config.net)).filter((network) => after === null || !sameNetwork(before, after, network));
}

/**
 * The address of an access point's BSS: the radio's MAC, locally administered, its last two bytes
 * from the interface's name, as a driver gives each further interface of a radio an address of its own.
 *
 * @example
 * bssidOf('04:f0:21:34:5a:9e', 'vwlan4dfe') // '06:f0:21:34:…'
 */
export function bssidOf(radioMac: string, hostInterface: string): string {
  const bytes = radioMac.split(':').map((hex) => Number.parseInt(hex, 16));
  const octets = bytes.length === 6 && bytes.every((byte) => byte >= 0 && byte <= 0xff) ? bytes : [0, 0, 0, 0, 0, 0];
  const suffix = Math.floor(draw(0, 'bssid', hostInterface) * 0x10000);
  const address = [octets[0]! | 0x02, octets[1]!, octets[2]!, octets[3]!, suffix >> 8, suffix & 0xff];
  return address.map((byte) => byte.toString(16).padStart(2, '0')).join(':');
}

/** hostapd's answer where serve could not start it: its control socket is missing, as on the device. */
function notStarted(reservation: NetworkReservation, reason: string): HttpProblem {
  return new HttpProblem(
    503,
    `hostapd control socket ${reservation.hostapdControl ?? reservation.hostInterface} does not exist: hostapd could not be started for this network (${reason})`,
  );
}
