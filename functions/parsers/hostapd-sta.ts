import { parseHostapdReply, type HostapdRecord } from './hostapd.ts';
import { blocksByHeader, type StationBlock, type StationRecord } from './iw-station.ts';

/** The first line of each station hostapd prints: its MAC address alone (`MACSTR`, lower case). */
const MAC_LINE = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/i;

/** A whole number as hostapd prints its counters, times and signal (`%d`, `%lu`). */
const INTEGER = /^-?\d+$/;

/** `rx_rate_info` and `tx_rate_info`: the rate in 100 kbit/s (as nl80211 gives it), then words such as `mcs 7 shortGI`. */
const RATE_INFO = /^(\d+)(?: |$)/;

/**
 * Splits what `hostapd_cli … all_sta` prints (hostapd's `STA` reply for each station, one after the
 * other) into one block per station, each verbatim from its MAC line up to the next: what
 * `hostapd_cli … sta <mac>` prints for that station. Text before the first MAC line belongs to no
 * block.
 *
 * @example
 * allStaBlocks('02:cb:00:00:01:02\nflags=[AUTHORIZED]\naid=0\n')
 * // [{ mac: '02:cb:00:00:01:02', text: '02:cb:00:00:01:02\nflags=[AUTHORIZED]\naid=0\n' }]
 */
export function allStaBlocks(text: string): StationBlock[] {
  return blocksByHeader(text, (line) => {
    const trimmed = line.trimEnd();
    return MAC_LINE.test(trimmed) ? trimmed : null;
  });
}

/**
 * Parses what `hostapd_cli … all_sta` prints into station records of the shape iw's station dump
 * gives (`parseStationDump`), one per station in hostapd's order. A station's `key=value` lines are
 * read as hostapd's other replies are (`parseHostapdReply`) and kept under hostapd's names, values
 * verbatim (`flags`, `aid`, `rx_bytes`, `dot1xAuthSessionUserName`, …); where iw prints the same
 * value, it is also given under iw's name and in iw's format (see `iwFields`). Nothing hostapd did
 * not print is added: a wired station has no signal, rate or connected time, so it has none of
 * those fields.
 *
 * @example
 * parseAllSta('02:cb:00:00:01:02\nflags=[AUTHORIZED]\ninactive_msec=40\nsignal=-52\n')
 * // [{ mac_addr: '02:cb:00:00:01:02', flags: '[AUTHORIZED]', authorized: 'yes', authenticated: 'no', associated: 'no',
 * //    inactive_msec: '40', inactive_time: '40 ms', signal: '-52 dBm' }]
 */
export function parseAllSta(text: string): StationRecord[] {
  return allStaBlocks(text).map((block) => stationRecord(block.mac, parseHostapdReply(block.text)));
}

/** One station's record: `mac_addr`, then each of hostapd's fields in its order, each followed by what iw names it. */
function stationRecord(mac: string, fields: HostapdRecord): StationRecord {
  const station: StationRecord = { mac_addr: mac };
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'mac_addr' || key === 'links') continue;
    station[key] = value;
    Object.assign(station, iwFields(key, value));
  }
  return station;
}

/**
 * What iw prints for the value of one of hostapd's fields, by iw's key (the station dump's key
 * rule) and in iw's format; {} for a field iw has no line for, or a value not as hostapd prints it.
 * - `flags`: `authorized`, `authenticated`, `associated` as `yes` or `no`, from `[AUTHORIZED]`,
 *   `[AUTH]` and `[ASSOC]`;
 * - `inactive_msec`: `inactive_time` in `ms`;
 * - `signal`: in `dBm` (hostapd gives no per-chain values);
 * - `connected_time`: in `seconds`;
 * - `rx_rate_info`, `tx_rate_info`: `rx_bitrate`, `tx_bitrate` as `<Mbit/s, one decimal> MBit/s`,
 *   without iw's MCS, width and guard interval words, which hostapd does not print alike; none for
 *   a rate of 0, which hostapd prints when the driver gave none.
 * `rx_bytes`, `tx_bytes`, `rx_packets` and `tx_packets` have the same name and format in both.
 */
function iwFields(key: string, value: string): Record<string, string> {
  if (key === 'flags') {
    const has = (flag: string) => (value.includes(`[${flag}]`) ? 'yes' : 'no');
    return { authorized: has('AUTHORIZED'), authenticated: has('AUTH'), associated: has('ASSOC') };
  }
  const rate = key === 'rx_rate_info' || key === 'tx_rate_info' ? RATE_INFO.exec(value) : null;
  if (rate !== null) {
    const tenths = Number(rate[1]);
    return tenths > 0 ? { [`${key.slice(0, 2)}_bitrate`]: `${Math.floor(tenths / 10)}.${tenths % 10} MBit/s` } : {};
  }
  if (!INTEGER.test(value)) return {};
  if (key === 'inactive_msec') return { inactive_time: `${value} ms` };
  if (key === 'signal') return { signal: `${value} dBm` };
  if (key === 'connected_time') return { connected_time: `${value} seconds` };
  return {};
}
