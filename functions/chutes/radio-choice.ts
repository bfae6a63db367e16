import type { InputError } from '../core/problem.ts';
import { radioBand, type Band, type HostConfig } from '../config/host-config.ts';
import { mapping } from './chute-record.ts';

/*
 * Which radio serves a chute's Wi-Fi network, chosen with its other reservations
 * (network-reservations.ts) so that a request no radio can serve is refused before anything is made:
 * - an access point goes on the first radio, in the host configuration's order, whose band fits
 *   `requests.hwmode` (11a: 5 GHz; 11b and 11g: 2.4 GHz; none: any band) and that no monitor network
 *   holds. Access points share a radio: each is an interface of its own on it.
 * - a monitor network takes a radio of its own, since its phy moves into the chute: one that serves
 *   none of the host's Wi-Fi networks and no chute network.
 * The radios are those of the host configuration's `wifi` that the device has.
 */

/** A radio a chute network can be given. */
export interface RadioOffer {
  /** Its id (`pci-wifi-0`), as GET /api/v1/info/hardware lists it and the host configuration's `wifi` names it. */
  id: string;
  /** Its band, from its channel and mode in the host configuration; null when they do not tell. */
  band: Band | null;
  /** The SSIDs of the host's own Wi-Fi networks on it (the host configuration's `wifi-interfaces`). */
  hostNetworks: string[];
}

/** The band each `requests.hwmode` of the seed needs. */
export const REQUESTED_BANDS: Readonly<Record<string, Band>> = { '11a': '5g', '11b': '2g', '11g': '2g' };

const BAND_NAMES: Readonly<Record<Band, string>> = { '2g': '2.4 GHz', '5g': '5 GHz' };

/**
 * The radios of the host configuration that the device has (`present`: the ids of its radios).
 *
 * @example
 * radioOffers({ wifi: [{ id: 'pci-wifi-0', channel: 36 }], 'wifi-interfaces': [{ device: 'pci-wifi-0', ssid: 'Home' }] }, ['pci-wifi-0'])
 * // [{ id: 'pci-wifi-0', band: '5g', hostNetworks: ['Home'] }]
 */
export function radioOffers(config: Pick<HostConfig, 'wifi' | 'wifi-interfaces'>, present: readonly string[]): RadioOffer[] {
  return (config.wifi ?? [])
    .filter((radio) => present.includes(radio.id))
    .map((radio) => ({
      id: radio.id,
      band: radioBand(radio),
      hostNetworks: (config['wifi-interfaces'] ?? []).filter((network) => network.device === radio.id).map((network) => network.ssid),
    }));
}

/** Who holds a radio already: the access points and monitor networks of chutes, each by its holder's name. */
export interface RadioHolders {
  accessPoints: Map<string, string[]>;
  monitors: Map<string, string>;
}

/**
 * The radio for the network `name` (an access point or a monitor interface), recorded in `holders`;
 * undefined with an error pushed, naming `net.<name>.requests.hwmode` when no radio has the band it
 * asks for and `net.<name>` otherwise.
 *
 * @example
 * chooseRadio('wifi', { type: 'wifi', requests: { hwmode: '11a' } }, offers, holders, errors) // 'pci-wifi-1'
 */
export function chooseRadio(
  name: string,
  entry: Readonly<Record<string, unknown>>,
  offers: readonly RadioOffer[],
  holders: RadioHolders,
  errors: InputError[],
): string | undefined {
  const holder = `network ${name} of this chute`;
  if (entry.mode === 'monitor') {
    const free = offers.find((radio) => radio.hostNetworks.length === 0 && !holders.accessPoints.has(radio.id) && !holders.monitors.has(radio.id));
    if (free !== undefined) {
      holders.monitors.set(free.id, holder);
      return free.id;
    }
    const uses = offers.map((radio) => `${radio.id} ${usesOf(radio, holders)}`);
    errors.push({
      path: `net.${name}`,
      message: `a monitor interface takes a radio of its own, and none is free${uses.length === 0 ? ': the device has no radio in its host configuration' : `: ${uses.join('; ')}`}`,
    });
    return undefined;
  }
  const hwmode = mapping(entry.requests).hwmode;
  const band = typeof hwmode === 'string' ? REQUESTED_BANDS[hwmode] : undefined;
  const chosen = offers.find((radio) => !holders.monitors.has(radio.id) && (band === undefined || radio.band === band));
  if (chosen !== undefined) {
    holders.accessPoints.set(chosen.id, [...(holders.accessPoints.get(chosen.id) ?? []), holder]);
    return chosen.id;
  }
  const radios = offers.map((radio) => {
    const monitor = holders.monitors.get(radio.id);
    return `${radio.id} ${monitor !== undefined ? `is given to ${monitor} (a monitor interface)` : `is on ${radio.band === null ? 'no band its settings tell' : BAND_NAMES[radio.band]}`}`;
  });
  if (band !== undefined) {
    errors.push({
      path: `net.${name}.requests.hwmode`,
      message: `no radio serves ${String(hwmode)} (${BAND_NAMES[band]})${radios.length === 0 ? ': the device has no radio in its host configuration' : `: ${radios.join('; ')}`}`,
    });
  } else {
    errors.push({
      path: `net.${name}`,
      message: `an access point needs a radio${radios.length === 0 ? ', and the device has none in its host configuration' : `: ${radios.join('; ')}`}`,
    });
  }
  return undefined;
}

/** What a radio serves, for a refusal. */
function usesOf(radio: RadioOffer, holders: RadioHolders): string {
  const uses = [
    ...radio.hostNetworks.map((ssid) => `the host's network ${JSON.stringify(ssid)}`),
    ...(holders.accessPoints.get(radio.id) ?? []),
    ...[holders.monitors.get(radio.id) ?? []].flat(),
  ];
  return `serves ${uses.join(', ')}`;
}
