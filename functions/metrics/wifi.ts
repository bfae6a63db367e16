import { type ChuteNetwork, chuteNetworks, type NetworkKind } from '../chutes/lookup.ts';
import type { StoredChute } from '../core/device/index.ts';
import { reusingLast } from '../core/reusing-last.ts';
import { type ListedStations, stationsAndSource } from '../networks/connected-stations.ts';
import { parseLeases } from '../parsers/dnsmasq-leases.ts';
import { type StationRecord, stationMeasure } from '../parsers/iw-station.ts';
import { decimal } from '../parsers/numbers.ts';
import { type Collector, counter, gauge, type MetricFamily, type Sample, type Scrape, sample } from './samples.ts';

/*
 * The chutes' Wi-Fi stations and DHCP leases, under the names of OpenWrt's
 * prometheus-node-exporter-lua (its wifi_stations, hostapd_stations and dnsmasq_dhcp_leases
 * collectors), each labelled with the chute and network it belongs to. The stations are those
 * `GET …/stations` answers (iw, or hostapd where iw cannot answer), the leases those of
 * `GET …/leases`.
 */

/** The labels of an access point; `ifname` is its host interface, as iw and hostapd name it. */
const ACCESS_POINT = ['chute', 'network', 'ifname'] as const;
/** The labels of one of its stations: those of its access point and the station's MAC address (lower case). */
const STATION = [...ACCESS_POINT, 'mac'] as const;
type StationLabels = Record<(typeof STATION)[number], string>;

/** How a family's value is read off a station's record; null leaves the station out of it. */
interface StationMeasure {
  family: MetricFamily<(typeof STATION)[number]>;
  read(station: StationRecord): number | null;
}

export const WIFI_STATIONS = gauge('wifi_stations', 'Stations connected to the access point', ACCESS_POINT);

/** What iw prints of each station, and hostapd in iw's format where iw cannot answer. */
const WIFI_MEASURES: readonly StationMeasure[] = [
  { family: gauge('wifi_station_signal_dbm', 'Signal strength of the station, in dBm', STATION), read: (s) => stationMeasure(s.signal, 'dBm') },
  {
    family: gauge('wifi_station_inactive_milliseconds', 'Time since the station was last active, in milliseconds', STATION),
    read: (s) => stationMeasure(s.inactive_time, 'ms'),
  },
  {
    family: gauge('wifi_station_transmit_kilobits_per_second', 'Bit rate of the last frame sent to the station, in kbit/s', STATION),
    read: (s) => kilobits(s.tx_bitrate),
  },
  {
    family: gauge('wifi_station_receive_kilobits_per_second', 'Bit rate of the last frame received from the station, in kbit/s', STATION),
    read: (s) => kilobits(s.rx_bitrate),
  },
  { family: counter('wifi_station_transmit_packets_total', 'Packets sent to the station', STATION), read: (s) => whole(s.tx_packets) },
  { family: counter('wifi_station_receive_packets_total', 'Packets received from the station', STATION), read: (s) => whole(s.rx_packets) },
  { family: counter('wifi_station_transmit_bytes_total', 'Bytes sent to the station', STATION), read: (s) => whole(s.tx_bytes) },
  { family: counter('wifi_station_receive_bytes_total', 'Bytes received from the station', STATION), read: (s) => whole(s.rx_bytes) },
];

/** What hostapd's `all_sta` says of each station, for the stations hostapd listed (where iw cannot answer). */
const HOSTAPD_MEASURES: readonly StationMeasure[] = [
  { family: counter('hostapd_station_receive_packets_total', 'Packets received from the station', STATION), read: (s) => whole(s.rx_packets) },
  { family: counter('hostapd_station_receive_bytes_total', 'Bytes received from the station', STATION), read: (s) => whole(s.rx_bytes) },
  { family: counter('hostapd_station_transmit_packets_total', 'Packets sent to the station', STATION), read: (s) => whole(s.tx_packets) },
  { family: counter('hostapd_station_transmit_bytes_total', 'Bytes sent to the station', STATION), read: (s) => whole(s.tx_bytes) },
  { family: gauge('hostapd_station_signal_dbm', 'Signal strength of the station, in dBm', STATION), read: (s) => stationMeasure(s.signal, 'dBm') },
  {
    family: counter('hostapd_station_connected_seconds_total', 'Time the station has been connected, in seconds', STATION),
    read: (s) => stationMeasure(s.connected_time, 'seconds'),
  },
  {
    family: gauge('hostapd_station_inactive_seconds', 'Time since the station was last active, in seconds', STATION),
    read: (s) => seconds(whole(s.inactive_msec)),
  },
  ...['AUTH', 'ASSOC', 'AUTHORIZED', 'SHORT_PREAMBLE', 'HT', 'VHT', 'HE', 'WMM', 'MFP'].map((flag) => ({
    family: gauge(`hostapd_station_flag_${flag.toLowerCase()}`, `1 when hostapd's flags of the station have [${flag}], else 0`, STATION),
    read: (s: StationRecord) => (typeof s.flags === 'string' ? Number(s.flags.includes(`[${flag}]`)) : null),
  })),
];

export const DNSMASQ_LEASE_EXPIRY = gauge(
  'dnsmasq_dhcp_lease_expiry_time_seconds',
  'When the DHCP lease ends, in seconds since the epoch (0: never); a dnsmasq without a real-time clock writes its length instead',
  ['chute', 'network', 'mac', 'ip', 'hostname'],
);

/** Every family of this module. */
export const WIFI_FAMILIES: readonly MetricFamily[] = [
  WIFI_STATIONS,
  ...WIFI_MEASURES.map((measure) => measure.family),
  ...HOSTAPD_MEASURES.map((measure) => measure.family),
  DNSMASQ_LEASE_EXPIRY,
];

/** The stations of every access point of the chutes, and how many each has. */
export const stationMetrics: Collector = (scrape) =>
  eachNetwork(scrape, ['access-point'], async (network) =>
    stationSamples(network, await stationsAndSource(scrape.device, scrape.device.network(network.target))),
  );

/** The DHCP leases of every network of the chutes that has them. */
export const leaseMetrics: Collector = (scrape) =>
  eachNetwork(scrape, ['access-point', 'vlan'], async (network) =>
    leaseSamples(scrape.device, network, (await scrape.device.network(network.target).leases()) ?? ''),
  );

/** `collect` on every network of one of `kinds`, at once; a network whose sources do not answer fails the scrape's part and gives nothing. */
async function eachNetwork(scrape: Scrape, kinds: readonly NetworkKind[], collect: (network: ChuteNetwork) => Promise<Sample[]>): Promise<Sample[]> {
  const networks = (await scrape.chutes).flatMap((chute: StoredChute) => chuteNetworks(chute)).filter((network) => kinds.includes(network.kind));
  const samples = await Promise.all(
    networks.map((network) =>
      collect(network).catch(() => {
        scrape.fail();
        return [];
      }),
    ),
  );
  return samples.flat();
}

function stationSamples(network: ChuteNetwork, listed: ListedStations): Sample[] {
  const accessPoint = { chute: network.chute, network: network.name, ifname: network.target.hostInterface ?? '' };
  const samples = [sample(WIFI_STATIONS, accessPoint, listed.stations.length)];
  const measures = listed.from === 'hostapd' ? [...WIFI_MEASURES, ...HOSTAPD_MEASURES] : WIFI_MEASURES;
  for (const station of listed.stations) {
    const labels: StationLabels = { ...accessPoint, mac: station.mac_addr.toLowerCase() };
    for (const measure of measures) {
      const value = measure.read(station);
      if (value !== null) samples.push(sample(measure.family, labels, value));
    }
  }
  return samples;
}

function leaseSamples(owner: object, network: ChuteNetwork, leaseFile: string): Sample[] {
  return leasesOf(owner, leaseFile).map((lease) =>
    sample(
      DNSMASQ_LEASE_EXPIRY,
      {
        chute: network.chute,
        network: network.name,
        mac: lease.mac_addr?.toLowerCase() ?? '',
        ip: lease.ip_addr,
        hostname: lease.hostname === '*' ? '' : lease.hostname,
      },
      Number(lease.expires),
    ),
  );
}

/** The lease file's records, parsed again only when the file changed. */
const leasesOf = reusingLast(parseLeases);

/** A whole number as iw and hostapd print their counters; null for anything else. */
function whole(value: StationRecord[string]): number | null {
  return typeof value === 'string' ? decimal(value) : null;
}

/** A bit rate as iw prints it (`866.7 MBit/s VHT-MCS 9 …`), in kbit/s. */
function kilobits(value: StationRecord[string]): number | null {
  const megabits = stationMeasure(value, 'MBit/s');
  return megabits === null ? null : Math.round(megabits * 1000);
}

function seconds(milliseconds: number | null): number | null {
  return milliseconds === null ? null : milliseconds / 1000;
}
