import { durationSeconds, leaseSeconds } from '../../functions/chutes/chute-config.ts';
import { DHCP_DEFAULTS, dhcpRange } from '../../functions/chutes/dhcp-range.ts';
import { mapping } from '../../functions/chutes/chute-record.ts';
import type { ChuteNetwork } from '../../functions/chutes/lookup.ts';
import { recordedReservations } from '../../functions/chutes/network-reservations.ts';
import type { StoredChute } from '../../functions/core/device/index.ts';
import { allStaBlocks, parseAllSta } from '../../functions/parsers/hostapd-sta.ts';
import { ipv4Number, parseCidr } from '../../functions/parsers/ipv4.ts';
import { parseStationDump, stationBlocks, stationMeasure, type StationRecord } from '../../functions/parsers/iw-station.ts';
import type { ReadRecording } from '../scenario/recorded-networks.ts';
import type { LeasePool } from './leases.ts';
import type { SessionAccessPoint } from './sessions.ts';
import type { RecordedCounters } from './station.ts';

/** A recorded station of an access point: its block (iw's, or hostapd's where only hostapd is recorded) and its numbers then. */
export interface RecordedStation {
  mac: string;
  /** When it associated, ms of emulated time (before 0). */
  startMs: number;
  block: string;
  counters: RecordedCounters;
  /** Its time on air when recorded, µs (iw's `tx duration`, `rx duration`). */
  txDurationUs: number;
  rxDurationUs: number;
}

/** An access point of the living network: a chute's Wi-Fi network and what its recordings say. */
export interface AccessPoint extends SessionAccessPoint {
  chute: string;
  network: string;
  hostInterface: string | null;
  recorded: readonly RecordedStation[];
  /** Whether iw can list its stations (no: only hostapd's `all_sta` is recorded, a lab link), and whether it has hostapd. */
  iw: boolean;
  hostapd: boolean;
  /** Its own first recorded iw block and `all_sta` block, the templates of its other stations; null when it has none. */
  iwTemplate: string | null;
  allStaTemplate: string | null;
  /** The bit rates of its recorded stations as iw prints them, slowest first, each direction (empty: none recorded). */
  txRates: readonly string[];
  rxRates: readonly string[];
  /** Its DHCP range and lease time; null without DHCP or a subnet. */
  pool: LeasePool | null;
  /** Its recorded lease file, as recorded (null: none). */
  leases: string | null;
}

/** The recording's times: when it was taken and when its device booted (ms since the epoch); null when unknown. */
export type RecordingTime = { atMs: number; bootMs: number } | null;

/**
 * An access point of a chute, from its configuration, its cache and its recordings (`read`): the
 * recorded stations (iw's dump, else hostapd's `all_sta`), their numbers, and its DHCP range.
 */
export async function accessPoint(chute: StoredChute, network: ChuteNetwork, read: ReadRecording, recording: RecordingTime): Promise<AccessPoint> {
  const target = { chute: chute.name, network: network.name };
  const [dump, allSta, status, config, leases] = await Promise.all([
    read(target, 'stationDump'),
    read(target, 'hostapdStations'),
    read(target, 'hostapdStatus'),
    read(target, 'hostapdConfig'),
    read(target, 'leases'),
  ]);
  const iwBlocks = dump === null ? [] : stationBlocks(dump);
  const staBlocks = allSta === null ? [] : allStaBlocks(allSta);
  const blocks = dump !== null ? iwBlocks : staBlocks;
  const records = dump !== null ? parseStationDump(dump) : allSta === null ? [] : parseAllSta(allSta);
  const recorded = blocks.map((block, index) => recordedStation(block.text, records[index] ?? { mac_addr: block.mac }, recording));
  return {
    key: `${chute.name}/${network.name}`,
    chute: chute.name,
    network: network.name,
    hostInterface: network.target.hostInterface,
    recorded,
    iw: dump !== null || allSta === null,
    hostapd: status !== null || config !== null || allSta !== null,
    iwTemplate: iwBlocks[0]?.text ?? null,
    allStaTemplate: staBlocks[0]?.text ?? null,
    txRates: ladder(records, 'tx_bitrate'),
    rxRates: ladder(records, 'rx_bitrate'),
    pool: leasePool(chute, network.name),
    leases,
  };
}

/** A recorded station from its block and its parsed record. */
function recordedStation(block: string, record: StationRecord, recording: RecordingTime): RecordedStation {
  const count = (key: string) => {
    const value = record[key];
    return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : 0;
  };
  const connectedMs = (stationMeasure(record.connected_time, 'seconds') ?? 0) * 1000;
  const boottime = typeof record['associated_at_[boottime]'] === 'string' ? Number.parseFloat(record['associated_at_[boottime]']) : NaN;
  // When it associated: from the device's uptime then, where both are recorded, else from its connected time.
  const startMs = recording !== null && Number.isFinite(boottime) ? Math.round(boottime * 1000 - (recording.atMs - recording.bootMs)) : -connectedMs;
  return {
    mac: record.mac_addr.toLowerCase(),
    startMs: Math.min(0, startMs),
    block,
    counters: {
      rxBytes: count('rx_bytes'),
      rxPackets: count('rx_packets'),
      txBytes: count('tx_bytes'),
      txPackets: count('tx_packets'),
      txRetries: count('tx_retries'),
      txFailed: count('tx_failed'),
      rxDropMisc: count('rx_drop_misc'),
      signal: stationMeasure(record.signal, 'dBm'),
      signalAvg: stationMeasure(record.signal_avg, 'dBm'),
      connectedMs,
    },
    txDurationUs: stationMeasure(record.tx_duration, 'us') ?? 0,
    rxDurationUs: stationMeasure(record.rx_duration, 'us') ?? 0,
  };
}

/** The different bit rates of a field in the records, as printed, slowest first. */
function ladder(records: readonly StationRecord[], key: 'tx_bitrate' | 'rx_bitrate'): string[] {
  const rates = new Map<string, number>();
  for (const record of records) {
    const text = record[key];
    const mbps = stationMeasure(text, 'MBit/s');
    if (typeof text === 'string' && mbps !== null) rates.set(text, mbps);
  }
  return [...rates].sort((a, b) => a[1] - b[1]).map(([text]) => text);
}

/**
 * The DHCP range of a network as serve gives dnsmasq (`dhcpRange`: `dhcp.start`, `dhcp.limit`, in
 * the subnet its cache holds, after the host's and the chute's addresses) and its lease time; null
 * without `dhcp`, without a subnet, or with a range that does not fit.
 */
function leasePool(chute: StoredChute, name: string): LeasePool | null {
  const entry = mapping(mapping(chute.config.net)[name]);
  const reservation = recordedReservations(chute.cache)[name];
  const subnet = reservation?.ipv4Network == null ? undefined : parseCidr(reservation.ipv4Network);
  if (entry.dhcp === undefined || subnet === undefined) return null;
  const dhcp = mapping(entry.dhcp);
  const whole = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);
  const taken = [reservation!.gateway, reservation!.chuteAddress].flatMap((address) => (address === null ? [] : [ipv4Number(address) ?? subnet.network]));
  try {
    const range = dhcpRange({ start: whole(dhcp.start), limit: whole(dhcp.limit) }, subnet, taken);
    const seconds = leaseSeconds({ dhcp }) ?? durationSeconds(DHCP_DEFAULTS.lease)!;
    return { first: range.first, size: range.last - range.first + 1, leaseMs: seconds * 1000 };
  } catch {
    return null;
  }
}
