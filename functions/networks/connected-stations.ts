import type { NetworkHost } from '../core/device/index.ts';
import { HttpProblem, isHttpProblem } from '../core/problem.ts';
import { reusingLast } from '../core/reusing-last.ts';
import { hostapdAnswer } from '../parsers/hostapd.ts';
import { parseAllSta } from '../parsers/hostapd-sta.ts';
import { parseStationDump, type StationRecord } from '../parsers/iw-station.ts';

/*
 * The stations of an access point come from iw (`iw dev <host interface> station …`), as on
 * ParaDrop. Where iw cannot answer, which the device says with a 503 (iw is missing, the kernel has
 * no nl80211, the host interface is no Wi-Fi interface, as on a lab link where hostapd runs its
 * wired driver, or none is recorded), they come from hostapd (`all_sta`), in the same shape
 * (`parseAllSta`); a station is then disconnected with hostapd's `DEAUTHENTICATE`.
 */

/**
 * Every station of the access point, in the order iw or hostapd lists them.
 *
 * @throws HttpProblem as the device's reads; where iw cannot answer and hostapd cannot either, the
 *   status of hostapd's failure with both reasons.
 * @example
 * await connectedStations(device, device.network(target)) // [{ mac_addr: '5c:f7:e6:1c:36:f7', signal: '-63 [-86, -63] dBm', … }]
 */
export async function connectedStations(owner: object, host: NetworkHost): Promise<StationRecord[]> {
  return (await stationsAndSource(owner, host)).stations;
}

/** The stations of an access point, and which tool listed them: iw, or hostapd where iw cannot answer. */
export interface ListedStations {
  from: 'iw' | 'hostapd';
  stations: StationRecord[];
}

/**
 * `connectedStations`, with which tool listed them: hostapd's records keep its own fields (`flags`,
 * `inactive_msec`, …) beside iw's.
 *
 * @throws HttpProblem as `connectedStations`.
 * @example
 * await stationsAndSource(device, device.network(target)) // { from: 'iw', stations: [{ mac_addr: '5c:f7:e6:1c:36:f7', … }] }
 */
export function stationsAndSource(owner: object, host: NetworkHost): Promise<ListedStations> {
  return fromIwOrHostapd<ListedStations>(
    owner,
    host,
    async () => ({ from: 'iw', stations: iwStationsOf(owner, await host.stationDump()) }),
    (stations) => ({ from: 'hostapd', stations }),
  );
}

/**
 * The station with a MAC address (lower case, as `requestedStation` gives it), or undefined when
 * none is connected.
 *
 * @throws HttpProblem as `connectedStations`.
 */
export function connectedStation(owner: object, host: NetworkHost, mac: string): Promise<StationRecord | undefined> {
  return fromIwOrHostapd(
    owner,
    host,
    async () => {
      const output = await host.stationGet(mac);
      return output === null ? undefined : iwStationsOf(owner, output).find((station) => isStation(station, mac));
    },
    (stations) => stations.find((station) => isStation(station, mac)),
  );
}

/**
 * Disconnects the station with a MAC address (lower case): `iw … station del <mac>`, or hostapd's
 * `DEAUTHENTICATE <mac>` for a station hostapd lists. False when no such station is connected.
 *
 * @throws HttpProblem as `connectedStations`; 502 when hostapd refuses to deauthenticate it.
 */
export function disconnectStation(owner: object, host: NetworkHost, mac: string): Promise<boolean> {
  return fromIwOrHostapd(
    owner,
    host,
    () => host.stationDel(mac),
    async (stations) => {
      if (!stations.some((station) => isStation(station, mac))) return false;
      const answer = hostapdAnswer(await host.hostapd(['DEAUTHENTICATE', mac]));
      if (answer !== 'OK') throw new HttpProblem(502, `hostapd answered DEAUTHENTICATE ${mac} with ${answer || 'nothing'}`);
      return true;
    },
  );
}

/** The station dump's records (or one station's), and hostapd's, parsed again only when their text changed. */
const iwStationsOf = reusingLast(parseStationDump);
const hostapdStationsOf = reusingLast(parseAllSta);

/** Answers what `iw` answers; where it answers a 503, what `hostapd` answers from hostapd's stations. */
async function fromIwOrHostapd<T>(owner: object, host: NetworkHost, iw: () => Promise<T>, hostapd: (stations: StationRecord[]) => T | Promise<T>): Promise<T> {
  let text: string;
  try {
    return await iw();
  } catch (iwProblem) {
    if (!isHttpProblem(iwProblem) || iwProblem.status !== 503) throw iwProblem;
    try {
      text = await host.hostapdStations();
    } catch (hostapdProblem) {
      if (!isHttpProblem(hostapdProblem)) throw hostapdProblem;
      throw new HttpProblem(hostapdProblem.status, `${iwProblem.message}; nor can hostapd list the stations: ${hostapdProblem.message}`);
    }
  }
  return hostapd(hostapdStationsOf(owner, text));
}

function isStation(station: StationRecord, mac: string): boolean {
  return station.mac_addr.toLowerCase() === mac;
}
