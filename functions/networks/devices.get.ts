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
  return (await Promise.all(networks.map((network) => devicesOn(device, network, asOf)))).flat();
};

/** The leases of one network, each joined with its station. */
async function devicesOn(device: Device, network: ChuteNetwork, asOf: number): Promise<NetworkDevice[]> {
  if (network.target.leaseFile === null) return [];
  const host = device.network(network.target);
  const leases = leasesOf((await host.leases()) ?? '');
  if (leases.size === 0) return [];
  const stations = network.kind === 'access-point' ? stationsByMac(await connectedStations(host)) : NO_STATIONS;
  return [...leases].map(([mac, lease]) => networkDevice(lease, network, asOf, stations.get(mac)));
}

/** The lease file's leases by MAC address, parsed again only when the file changed. */
const leasesOf = reusingLast((text: string) => leasesByMac(parseLeases(text)));

/** The stations by MAC address (lower case), made again only when the stations changed. */
const stationsByMac = reusingLast((stations: readonly StationRecord[]) => new Map(stations.map((station) => [station.mac_addr.toLowerCase(), station])));

const NO_STATIONS: ReadonlyMap<string, StationRecord> = new Map();

function networkDevice(lease: LeaseRecord, network: ChuteNetwork, asOf: number, station: StationRecord | undefined): NetworkDevice {
  return {
    mac_addr: lease.mac_addr!,
    ip_addr: lease.ip_addr,
    hostname: lease.hostname,
    client_id: lease.client_id ?? null,
    expires: Number(lease.expires),
    as_of: asOf,
    chute: network.chute,
    network: network.name,
    station: station === undefined ? null : stationFields(station),
  };
}
