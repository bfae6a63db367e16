import { deepFreeze } from '../core/deep-freeze.ts';
import { reusingLast } from '../core/reusing-last.ts';
import { defineRoute } from '../core/route.ts';
import type { Device } from '../core/device/index.ts';
import type { Handler } from '../core/handler.ts';
import { parseLeases, type LeaseRecord } from '../parsers/dnsmasq-leases.ts';
import type { StationRecord } from '../parsers/iw-station.ts';
import { connectedStations } from './connected-stations.ts';
import { leasesByMac, stationFields } from './station-leases.ts';
import { type ChuteNetwork, chuteNetworks, installedChutes } from '../chutes/lookup.ts';
import { ChuteListRequestSchema, NetworkDeviceListSchema, type NetworkDevice, type NetworkDeviceList } from '../chutes/schemas.ts';

export const route = defineRoute('GET /api/v1/network/devices', "The devices connected to the chutes' networks: each DHCP lease with its station");
export const request = ChuteListRequestSchema;
export const response = NetworkDeviceListSchema;

/**
 * ParaDrop's list of connected devices: the DHCP leases of every chute network that hands them out
 * (access points and VLAN networks), one per MAC address and network, in chute and network order.
 * Each names its chute and network and, on an access point, carries the station with its MAC address
 * (iw, or hostapd where iw cannot answer). A network without a lease file recorded has handed out
 * no lease; one without leases asks for no stations.
 *
 * @throws HttpProblem as `GET …/clients` when an access point with leases cannot list its stations.
 * @example
 * await handle(input, device)
 * // [{ mac_addr: '5c:f7:e6:1c:36:f7', ip_addr: '192.168.128.23', hostname: 'phone', client_id: '01:5c:f7:e6:1c:36:f7', expires: 1700003600,
 * //    as_of: 1700000000, chute: 'hello', network: 'wlan', station: { signal: '-63 dBm', … } }]
 */
export const handle: Handler<NetworkDeviceList> = async (_input, device) => {
  const networks = (await installedChutes(device)).flatMap(chuteNetworks).filter((network) => network.kind === 'access-point' || network.kind === 'vlan');
  const asOf = Math.floor(device.now() / 1000);
  return joined(device, ...(await Promise.all(networks.map((network) => devicesOn(device, network, asOf)))));
};

/** The leases of one network, each joined with its station. */
async function devicesOn(device: Device, network: ChuteNetwork, asOf: number): Promise<readonly NetworkDevice[]> {
  if (network.target.leaseFile === null) return NO_DEVICES;
  const host = device.network(network.target);
  const leases = leasesOf(device, (await host.leases()) ?? '');
  if (leases.length === 0) return NO_DEVICES;
  const stations = network.kind === 'access-point' ? await connectedStations(device, host) : NO_STATIONS;
  return networkDevices(device, leases, stations, network.chute, network.name, asOf);
}

/** The lease file's leases, one a MAC address (`leasesByMac`, in its order), parsed again only when the file changed: frozen, a source of `networkDevices`. */
const leasesOf = reusingLast((text: string) => [...leasesByMac(parseLeases(text))]);

const NO_DEVICES: readonly NetworkDevice[] = deepFreeze([]);
const NO_STATIONS: readonly StationRecord[] = deepFreeze([]);

/**
 * A network's devices, a pure build from its leases and its stations (two parses, frozen), made
 * again only when one of them, the network or the second changed: a dashboard polling within a
 * second is answered the same frozen list, whose JSON is kept (`answerJson`).
 */
const networkDevices = reusingLast(
  (leases: readonly (readonly [string, LeaseRecord])[], stations: readonly StationRecord[], chute: string, name: string, asOf: number) => {
    const byMac = new Map(stations.map((station) => [station.mac_addr.toLowerCase(), station]));
    return leases.map(([mac, lease]) => networkDevice(lease, chute, name, asOf, byMac.get(mac)));
  },
);

/** The networks' devices in one list, made again only when one network's changed. */
const joined = reusingLast((...lists: (readonly NetworkDevice[])[]): NetworkDevice[] => lists.flat());

function networkDevice(lease: LeaseRecord, chute: string, network: string, asOf: number, station: StationRecord | undefined): NetworkDevice {
  return {
    mac_addr: lease.mac_addr!,
    ip_addr: lease.ip_addr,
    hostname: lease.hostname,
    client_id: lease.client_id ?? null,
    expires: Number(lease.expires),
    as_of: asOf,
    chute,
    network,
    station: station === undefined ? null : stationFields(station),
  };
}
