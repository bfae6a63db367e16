import { reusingLast } from '../core/reusing-last.ts';
import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { parseLeases, type LeaseRecord } from '../parsers/dnsmasq-leases.ts';
import type { StationRecord } from '../parsers/iw-station.ts';
import { connectedStations } from './connected-stations.ts';
import { leasesByMac, stationFields } from './station-leases.ts';
import { requestedNetwork } from '../chutes/lookup.ts';
import { ClientListSchema, type ClientList, NetworkRequestSchema, type Client } from '../chutes/schemas.ts';

export const route = defineRoute('GET /api/v1/chutes/:chute/networks/:network/clients', 'Stations of an access point with their DHCP lease (IP, host name)');
export const request = NetworkRequestSchema;
export const response = ClientListSchema;

/**
 * The stations of the access point (`iw … station dump`, or where iw cannot answer hostapd's
 * `all_sta`: see connected-stations.ts) joined by MAC address with the network's
 * DHCP leases. A station without a lease has `ip_addr` and `hostname` null: chutebox only knows the
 * addresses its dnsmasq handed out, so on a bridged network, where clients get their address from
 * another DHCP server (or set one), a client's IP address cannot be known.
 *
 * @example
 * await handle(input, device)
 * // [{ mac_addr: '5c:f7:e6:1c:36:f7', ip_addr: '192.168.128.23', hostname: 'phone', signal: '-63 [-86, -63] dBm', signal_avg: '-64 dBm',
 * //    tx_bitrate: '702.0 MBit/s VHT-MCS 8 80MHz VHT-NSS 2', rx_bitrate: '24.0 MBit/s', inactive_time: '6530 ms', connected_time: '4238 seconds' }]
 */
export const handle: Handler<ClientList> = async (input, device) => {
  const network = await requestedNetwork(input, device, ['access-point'], 'list clients');
  const host = device.network(network.target);
  const [stations, leaseFile] = await Promise.all([connectedStations(device, host), host.leases()]);
  return clientsOf(device, stations, leaseFile ?? '');
};

/** The clients of the stations (a kept parse) with their leases, made again only when the stations or the lease file changed. */
const clientsOf = reusingLast((stations: readonly StationRecord[], leaseFile: string) => {
  const leases = leasesByMac(parseLeases(leaseFile));
  return stations.map((station) => client(station, leases.get(station.mac_addr.toLowerCase())));
});

function client(station: StationRecord, lease: LeaseRecord | undefined): Client {
  return {
    mac_addr: station.mac_addr,
    ip_addr: lease?.ip_addr ?? null,
    hostname: lease === undefined || lease.hostname === '*' ? null : lease.hostname,
    ...stationFields(station),
  };
}
