/** The fields of one MLO link of a station (`Link N:` block), by the same key rule as a station. */
export type StationLink = Record<string, string>;

/**
 * One station of `iw dev <if> station dump` or `station get <mac>`: every `key: value` line of its
 * block, plus `mac_addr` from the `Station <mac> (on <dev>)` line and, for a Wi-Fi 7 multi-link
 * station, its `Link N:` blocks in `links`.
 */
export type StationRecord = { mac_addr: string; links?: StationLink[] } & { [key: string]: string | StationLink[] | undefined };

/** `Station <mac> (on <dev>)`, the first line of every block iw prints. */
const STATION_HEADER = /^Station (\S+) \(on [^)]*\)/;

/** `Link <id>:` opens the block of one link of a multi-link (MLO) station. */
const LINK_HEADER = /^Link (\d+)$/;

/**
 * Parses what `iw dev <if> station dump` (or `station get <mac>`) prints: one record per
 * `Station <mac> (on <dev>)` block, in the order iw printed them.
 *
 * The rules follow iw's printer (station.c), not a fixed list of keys, so lines that newer iw
 * versions add are read like the others:
 * - a field line is `<indent><key>:<spaces or tabs><value>`; the indent is tabs or spaces, and the
 *   separator may be empty (`beacon interval:100`, `short slot time:yes`). The key ends at the first
 *   colon, so values keep theirs (`MLD address: 00:03:7f:04:31:78`).
 * - key: lower-case, each space and `/` turned into `_`, nothing else changed (`WMM/WME` → `wmm_wme`,
 *   `associated at [boottime]` → `associated_at_[boottime]`, `TDLS peer` → `tdls_peer`).
 * - value: the text after the colon without the surrounding blanks, exactly as iw printed it, units
 *   and per-chain lists kept (`-42 [-44, -45] dBm`, `866.7 MBit/s VHT-MCS 9 80MHz short GI VHT-NSS 2`,
 *   `(unknown)`, `3.808Mbps`, `233 seconds`).
 * - `Link N:` (a Wi-Fi 7 MLO link) opens a nested block: the lines indented deeper than it (tabs
 *   counted to 8-column stops, so mixed tab and space indents compare right) are that link's fields,
 *   kept in `links` as `{ link_id: 'N', … }` by the same key rule; the first line indented no deeper
 *   ends it.
 * - a `key:` line with no value heads a table that only `station dump -v` prints (`MSDU:`, `TXQs:`);
 *   it is not a field, and the table's rows, which have no colon, are skipped, as is any line without
 *   one. Text before the first `Station` line and blank lines are ignored.
 *
 * @example
 * parseStationDump('Station 04:f0:21:32:3f:d2 (on wlan0)\n\tinactive time:\t70 ms\n\tsignal:  \t-60 [-60, -61] dBm\n\tbeacon interval:100\n')
 * // [{ mac_addr: '04:f0:21:32:3f:d2', inactive_time: '70 ms', signal: '-60 [-60, -61] dBm', beacon_interval: '100' }]
 */
export function parseStationDump(text: string): StationRecord[] {
  const stations: StationRecord[] = [];
  let station: StationRecord | null = null;
  let link: StationLink | null = null;
  let linkIndent = 0;
  // Where the next colon is: a line without one does not make the search run to the end again.
  let nextColon = -1;
  for (let lineStart = 0, lineEnd = 0; lineStart < text.length; lineStart = lineEnd + 1) {
    lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    let start = lineStart;
    while (start < lineEnd && isBlank(text.charCodeAt(start))) start++;
    if (start === lineEnd) continue;
    if (text.charCodeAt(start) === 83 /* S */ && text.startsWith('Station ', start)) {
      const header = STATION_HEADER.exec(text.slice(start, lineEnd));
      if (header) {
        station = { mac_addr: header[1]! };
        stations.push(station);
        link = null;
        continue;
      }
    }
    if (station === null) continue;
    if (nextColon < start) {
      nextColon = text.indexOf(':', start);
      if (nextColon < 0) nextColon = text.length;
    }
    if (nextColon >= lineEnd) continue;
    const colon = nextColon;
    if (link !== null && indentWidth(text, lineStart, start) <= linkIndent) link = null;
    let valueStart = colon + 1;
    while (valueStart < lineEnd && isBlank(text.charCodeAt(valueStart))) valueStart++;
    let valueEnd = lineEnd;
    while (valueEnd > valueStart && isBlank(text.charCodeAt(valueEnd - 1))) valueEnd--;
    if (valueStart === valueEnd) {
      const linkHeader = LINK_HEADER.exec(text.slice(start, colon));
      if (linkHeader) {
        link = { link_id: linkHeader[1]! };
        linkIndent = indentWidth(text, lineStart, start);
        (station.links ??= []).push(link);
      }
      continue;
    }
    const key = stationKey(text.slice(start, colon));
    if (key === '' || key === '__proto__') continue;
    const value = text.slice(valueStart, valueEnd);
    if (link !== null) link[key] = value;
    else station[key] = value;
  }
  return stations;
}

const keys = new Map<string, string>();

/**
 * iw's field name as a record key: lower-case, each space and `/` as `_`.
 *
 * @example
 * stationKey('WMM/WME')     // 'wmm_wme'
 * stationKey('signal avg')  // 'signal_avg'
 */
export function stationKey(name: string): string {
  let key = keys.get(name);
  if (key === undefined) {
    key = name.trimEnd().toLowerCase().replace(/[ /]/g, '_');
    if (keys.size < 1024) keys.set(name, key);
  }
  return key;
}

/** A space, a tab, or the `\r` of a Windows line end. */
function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}

/** Display width of the indent `text[from, to)`, with tab stops every 8 columns as a terminal shows it. */
function indentWidth(text: string, from: number, to: number): number {
  let width = 0;
  for (let i = from; i < to; i++) width = text.charCodeAt(i) === 9 ? (width + 8) & ~7 : width + 1;
  return width;
}

/** One station's block of a dump, verbatim. */
export interface StationBlock {
  /** The MAC of its `Station <mac> (on <dev>)` line, as iw printed it. */
  mac: string;
  /** The block exactly as iw printed it, from its `Station` line up to the next one. */
  text: string;
}

/**
 * Splits what `iw dev <if> station dump` prints into one block per `Station <mac> (on <dev>)` line,
 * each verbatim (the header line included): what `iw dev <if> station get <mac>` prints for that
 * station. Text before the first `Station` line belongs to no block.
 *
 * @example
 * stationBlocks('Station 04:f0:21:32:3f:d2 (on wlan0)\n\tinactive time:\t70 ms\n')
 * // [{ mac: '04:f0:21:32:3f:d2', text: 'Station 04:f0:21:32:3f:d2 (on wlan0)\n\tinactive time:\t70 ms\n' }]
 */
export function stationBlocks(text: string): StationBlock[] {
  const starts: { mac: string; at: number }[] = [];
  for (let lineStart = 0; lineStart < text.length; ) {
    const lineEnd = text.indexOf('\n', lineStart);
    const next = lineEnd < 0 ? text.length : lineEnd + 1;
    const header = STATION_HEADER.exec(text.slice(lineStart, next).trimStart());
    if (header) starts.push({ mac: header[1]!, at: lineStart });
    lineStart = next;
  }
  return starts.map(({ mac, at }, i) => ({ mac, text: text.slice(at, starts[i + 1]?.at ?? text.length) }));
}
