import type { LeaseRecord } from '../parsers/dnsmasq-leases.ts';
import type { StationRecord } from '../parsers/iw-station.ts';
import type { StationFields } from '../chutes/schemas.ts';

/*
 * How a network's stations and its DHCP leases are joined: by MAC address, in lower case, one lease
 * per MAC address. `GET …/clients` joins each station with its lease, `GET /api/v1/network/devices`
 * each lease with its station.
 */

/**
 * The IPv4 lease of each MAC address (lower case). When a file holds several for one MAC (one per
 * subnet), the one that ends last wins, an infinite one (`0`) above all.
 *
 * @example
 * leasesByMac(parseLeases('0 5C:F7:E6:1C:36:F7 192.168.128.40 * *\n')).get('5c:f7:e6:1c:36:f7') // { expires: '0', ip_addr: '192.168.128.40', … }
 */
export function leasesByMac(leases: readonly LeaseRecord[]): Map<string, LeaseRecord> {
  const byMac = new Map<string, LeaseRecord>();
  const end = (lease: LeaseRecord) => (lease.expires === '0' ? Infinity : Number(lease.expires));
  for (const lease of leases) {
    if (lease.mac_addr === undefined) continue;
    const mac = lease.mac_addr.toLowerCase();
    const known = byMac.get(mac);
    if (known === undefined || end(lease) >= end(known)) byMac.set(mac, lease);
  }
  return byMac;
}

/**
 * What a station's record says of its signal, rates and times, each null where the tool printed none.
 *
 * @example
 * stationFields({ mac_addr: '5c:f7:e6:1c:36:f7', signal: '-63 dBm' }) // { signal: '-63 dBm', signal_avg: null, … }
 */
export function stationFields(station: StationRecord): StationFields {
  const field = (key: string) => {
    const value = station[key];
    return typeof value === 'string' ? value : null;
  };
  return {
    signal: field('signal'),
    signal_avg: field('signal_avg'),
    tx_bitrate: field('tx_bitrate'),
    rx_bitrate: field('rx_bitrate'),
    inactive_time: field('inactive_time'),
    connected_time: field('connected_time'),
  };
}
