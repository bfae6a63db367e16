/** The fields of one MLO link of a station (`Link N:` block), by the same key rule as a station. */
export type StationLink = Record<string, string>;

/**
 * One station of `iw dev <if> station dump` or `station get <mac>`: every `key: value` line of its
 * block, plus `mac_addr` from the `Station <mac> (on <dev>)` line and, for a Wi-Fi 7 multi-link
 * station, its `Link N:` blocks in `links`.
 */
export type StationRecord = { mac_addr: string; links?: StationLink[] } & { [key: string]: string | StationLink[] | undefined };

/** `Station <mac> (on <dev>)`, the first line of every block iw prints (after any indent). */
const STATION_HEADER = /^\s*Station (\S+) \(on [^)]*\)/;

/** `Link <id>` before a colon opens the block of one link of a multi-link (MLO) station. */
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
 *   kept in `links` as `{ link_id: 'N', … }` by the same key rule; the first line with a colon
 *   indented no deeper ends it.
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
  let link: OpenLink | null = null;
  for (const line of text.split('\n')) {
    const mac = stationMac(line);
    if (mac !== null) {
      stations.push({ mac_addr: mac });
      link = null;
    } else if (stations.length > 0) {
      link = readLine(stations[stations.length - 1]!, link, line);
    }
  }
  return stations;
}

/** The link block being read: its record, and the indent of its `Link N:` line. */
interface OpenLink {
  fields: StationLink;
  indent: number;
}

/** A line with a colon: the width of its indent, the text before the colon, and the value after it without the blanks around it. */
interface FieldLine {
  indent: number;
  name: string;
  value: string;
}

/** The MAC of a `Station` line; null for any other line. */
function stationMac(line: string): string | null {
  return STATION_HEADER.exec(line)?.[1] ?? null;
}

/** Reads one line of `station`'s block into it, or into its open link; answers the link still open after the line. */
function readLine(station: StationRecord, link: OpenLink | null, line: string): OpenLink | null {
  const field = fieldLine(line);
  if (field === null) return link;
  const open = link !== null && field.indent > link.indent ? link : null;
  if (field.value === '') return linkOpenedBy(station, field) ?? open;
  const key = stationKey(field.name);
  if (key !== '' && key !== '__proto__') (open?.fields ?? station)[key] = field.value;
  return open;
}

/** The line as a `FieldLine`; null for a line without a colon (blank, or a table's row). */
function fieldLine(line: string): FieldLine | null {
  const start = skipBlanks(line, 0);
  const colon = line.indexOf(':', start);
  if (colon < 0) return null;
  return { indent: indentWidth(line.slice(0, start)), name: line.slice(start, colon), value: trimBlanks(line.slice(colon + 1)) };
}

/** The link a `Link N:` line opens, added to the station's `links`; null for any other line without a value. */
function linkOpenedBy(station: StationRecord, field: FieldLine): OpenLink | null {
  const id = LINK_HEADER.exec(field.name)?.[1];
  if (id === undefined) return null;
  const fields: StationLink = { link_id: id };
  (station.links ??= []).push(fields);
  return { fields, indent: field.indent };
}

/**
 * iw's field name as a record key: lower-case, each space and `/` as `_`.
 *
 * @example
 * stationKey('WMM/WME')     // 'wmm_wme'
 * stationKey('signal avg')  // 'signal_avg'
 */
export function stationKey(name: string): string {
  return name.trimEnd().toLowerCase().replace(/[ /]/g, '_');
}

/** A station field's number, then its per-chain list (`[-47, -49]`) if any, then its unit. */
const MEASURE = /^(-?\d+(?:\.\d+)?)(?: \[[^\]]*\])? (\S+)/;

/**
 * The number of a station field's value as iw prints it, when it is in `unit`; null for a missing
 * value or one in another unit. Per-chain lists and words after the unit are left out.
 *
 * @example
 * stationMeasure('-44 [-47, -49] dBm', 'dBm')                          // -44
 * stationMeasure('866.7 MBit/s VHT-MCS 9 80MHz short GI', 'MBit/s')   // 866.7
 * stationMeasure('310 ms', 'seconds')                                  // null
 */
export function stationMeasure(value: string | StationLink[] | undefined, unit: string): number | null {
  if (typeof value !== 'string') return null;
  const match = MEASURE.exec(value);
  return match !== null && match[2] === unit ? Number(match[1]) : null;
}

/** A space, a tab, or the `\r` of a Windows line end. */
function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\r';
}

/** The first position of `text` from `from` on that is not blank; the text's length when there is none. */
function skipBlanks(text: string, from: number): number {
  while (isBlank(text[from])) from++;
  return from;
}

/** `text` without the blanks at its start and end. */
function trimBlanks(text: string): string {
  let end = text.length;
  while (end > 0 && isBlank(text[end - 1])) end--;
  return text.slice(Math.min(skipBlanks(text, 0), end), end);
}

/** Display width of an indent, with tab stops every 8 columns as a terminal shows it. */
function indentWidth(indent: string): number {
  let width = 0;
  for (const c of indent) width = c === '\t' ? (width + 8) & ~7 : width + 1;
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
  return blocksByHeader(text, stationMac);
}

/**
 * Splits a tool's output into one block per station, each verbatim from its header line up to the
 * next header: `macOf` answers the MAC of a header line (its line end included) and null for any
 * other line. Text before the first header belongs to no block.
 */
export function blocksByHeader(text: string, macOf: (line: string) => string | null): StationBlock[] {
  const starts: { mac: string; at: number }[] = [];
  for (let lineStart = 0; lineStart < text.length; ) {
    const lineEnd = text.indexOf('\n', lineStart);
    const next = lineEnd < 0 ? text.length : lineEnd + 1;
    const mac = macOf(text.slice(lineStart, next));
    if (mac !== null) starts.push({ mac, at: lineStart });
    lineStart = next;
  }
  return starts.map(({ mac, at }, i) => ({ mac, text: text.slice(at, starts[i + 1]?.at ?? text.length) }));
}
