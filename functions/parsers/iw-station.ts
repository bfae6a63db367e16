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
 * Speed: iw prints the same lines for every station of a dump, so each block is first read as a
 * repeat of the one before (`readPredictedBlock`), and only a block that differs is worked out
 * line by line (`readBlock`). Both give the same records.
 *
 * @example
 * parseStationDump('Station 04:f0:21:32:3f:d2 (on wlan0)\n\tinactive time:\t70 ms\n\tsignal:  \t-60 [-60, -61] dBm\n\tbeacon interval:100\n')
 * // [{ mac_addr: '04:f0:21:32:3f:d2', inactive_time: '70 ms', signal: '-60 [-60, -61] dBm', beacon_interval: '100' }]
 */
export function parseStationDump(text: string): StationRecord[] {
  const stations: StationRecord[] = [];
  const search: SearchBudget = { left: text.length };
  let layout: BlockLayout | null = null;
  for (let header = nextStationHeader(text, 0); header !== null; ) {
    const predicted = layout !== null && search.left > 0 ? readPredictedBlock(text, header, layout, search) : null;
    if (predicted !== null) {
      stations.push(predicted.station);
      header = predicted.next;
      continue;
    }
    const block = readBlock(text, header);
    stations.push(block.station);
    layout = block.fields?.keys.length ? { ...block.fields, runs: null, read: [] } : null;
    header = block.next;
  }
  return stations;
}

/** A `Station` line: the station's MAC, and where the line after it starts. */
interface StationHeader {
  mac: string;
  body: number;
}

/** One station's block read: its record, and the header of the next block (null at the end). */
interface Block {
  station: StationRecord;
  next: StationHeader | null;
}

/**
 * The field lines of a block, each as `lead`, `key` and `value`: the lead is the text from the
 * newline before the line up to the value (blank lines, indent, name, colon and separator, e.g.
 * `\n\ttx bitrate:\t`).
 */
interface BlockFields {
  leads: string[];
  keys: string[];
  values: string[];
}

/**
 * A block's field lines as the prediction of the next block's, which iw prints with the same
 * lines and other values.
 */
interface BlockLayout extends BlockFields {
  /** The records of the blocks read with the layout: made when the first one is (see `recordShape`). */
  shape?: RecordShape | null;
  /**
   * Lines that the first block read by prediction printed word for word as the layout's block did
   * (flags such as `authorized: yes` or `MFP: no`): at the position of each run's first field, the
   * run's text and the position after its last field. Null until that first block.
   */
  runs: (LineRun | null)[] | null;
  /** The values of the block being read, by field. */
  read: string[];
}

/** A record with `mac_addr` then `keys`, all held in the object itself: each station is a copy. */
interface RecordShape {
  template: StationRecord;
  /** The keys as the template's property names, which are interned strings: storing with them needs no string lookup. */
  keys: string[];
}

/** Consecutive field lines read as one text: `text` from the first one's lead to the end of the last. */
interface LineRun {
  text: string;
  end: number;
}

/**
 * How much text searches that missed may still go through. Reading a block by prediction looks
 * for each line's expected text with `indexOf`, which goes on past a block that differs to the
 * text's next occurrence, or the end; once misses have covered the text's length, prediction
 * stops, so that no input costs more than about twice as much as reading it line by line.
 */
interface SearchBudget {
  left: number;
}

/** The first valid `Station` line at or after the line that starts at `from`. */
function nextStationHeader(text: string, from: number): StationHeader | null {
  for (let lineStart = from, lineEnd = 0; lineStart < text.length; lineStart = lineEnd + 1) {
    lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const header = stationHeaderAt(text, skipBlanks(text, lineStart, lineEnd), lineEnd);
    if (header !== null) return header;
  }
  return null;
}

/** The `Station` line whose text runs from `start` to `lineEnd`; null for any other line. */
function stationHeaderAt(text: string, start: number, lineEnd: number): StationHeader | null {
  if (text.charCodeAt(start) !== 83 /* S */ || !text.startsWith('Station ', start)) return null;
  const header = STATION_HEADER.exec(text.slice(start, lineEnd));
  return header === null ? null : { mac: header[1]!, body: lineEnd + 1 };
}

/**
 * Reads the block of `header` line by line, by the rules of `parseStationDump`. Its `fields` are
 * given when they can predict the next block: every line a field of the station (no link, no
 * table, no skipped line), and none that starts like a `Station` line, which a prediction could
 * otherwise take for a field.
 */
function readBlock(text: string, header: StationHeader): Block & { fields: BlockFields | null } {
  const station: StationRecord = { mac_addr: header.mac };
  let link: StationLink | null = null;
  let linkIndent = 0;
  // Where the next colon is: a line without one does not make the search run to the end again.
  let nextColon = -1;
  let fields: BlockFields | null = { leads: [], keys: [], values: [] };
  let leadStart = header.body - 1;
  for (let lineStart = header.body, lineEnd = 0; lineStart < text.length; lineStart = lineEnd + 1) {
    lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const start = skipBlanks(text, lineStart, lineEnd);
    if (start === lineEnd) continue;
    const next = stationHeaderAt(text, start, lineEnd);
    if (next !== null) return { station, next, fields };
    if (nextColon < start) {
      nextColon = text.indexOf(':', start);
      if (nextColon < 0) nextColon = text.length;
    }
    if (nextColon >= lineEnd) {
      fields = null;
      continue;
    }
    const colon = nextColon;
    if (link !== null && indentWidth(text, lineStart, start) <= linkIndent) link = null;
    const valueStart = skipBlanks(text, colon + 1, lineEnd);
    let valueEnd = lineEnd;
    while (valueEnd > valueStart && isBlank(text.charCodeAt(valueEnd - 1))) valueEnd--;
    if (valueStart === valueEnd) {
      fields = null;
      const linkHeader = LINK_HEADER.exec(text.slice(start, colon));
      if (linkHeader) {
        link = { link_id: linkHeader[1]! };
        linkIndent = indentWidth(text, lineStart, start);
        (station.links ??= []).push(link);
      }
      continue;
    }
    const name = text.slice(start, colon);
    const key = stationKey(name);
    if (key === '' || key === '__proto__') {
      fields = null;
      continue;
    }
    const value = text.slice(valueStart, valueEnd);
    if (link !== null) link[key] = value;
    else station[key] = value;
    if (name.startsWith('Station ')) fields = null;
    if (fields === null) continue;
    fields.leads.push(text.slice(leadStart, valueStart));
    fields.keys.push(key);
    fields.values.push(value);
    leadStart = lineEnd;
  }
  return { station, next: null, fields };
}

/**
 * The shape of records with `keys`; null when the keys cannot be a template's property names in
 * line order (a key repeated or equal to `mac_addr`, or an array index, which an object puts first).
 */
function recordShape(keys: string[]): RecordShape | null {
  // JSON.parse sizes an object to hold all its properties in the object itself, and spreading it
  // copies that layout in one step; a record built key by key turns into a slow dictionary.
  const template = JSON.parse(`{"mac_addr":""${keys.map((key) => `,${JSON.stringify(key)}:""`).join('')}}`) as StationRecord;
  const names = Object.keys(template);
  if (names.length !== keys.length + 1 || keys.some((key, i) => names[i + 1] !== key)) return null;
  return { template, keys: names.slice(1) };
}

/**
 * Reads the block of `header` as a repeat of the block that `layout` comes from: each field's lead
 * where the line before it ends, then a value up to the line's end, and after the last field only
 * blank lines before the next `Station` line or the end. Null as soon as the block differs.
 */
function readPredictedBlock(text: string, header: StationHeader, layout: BlockLayout, search: SearchBudget): Block | null {
  const { leads, values, runs, read } = layout;
  // The line ends of the first block read with this layout, to find its runs.
  const lineEnds: number[] | null = runs === null ? [] : null;
  let lineEnd = header.body - 1;
  for (let i = 0; i < leads.length; i++) {
    const run = runs?.[i];
    if (run) {
      const runEnd = lineEnd + run.text.length;
      if ((runEnd === text.length || text.charCodeAt(runEnd) === 10) && foundAt(text, run.text, lineEnd, search)) {
        for (let k = i; k < run.end; k++) read[k] = values[k]!;
        lineEnd = runEnd;
        i = run.end - 1;
        continue;
      }
      // A line of the run changed: its lines are read one by one from now on.
      runs![i] = null;
    }
    const lead = leads[i]!;
    if (!foundAt(text, lead, lineEnd, search)) return null;
    const valueStart = lineEnd + lead.length;
    const first = text.charCodeAt(valueStart);
    if (valueStart >= text.length || first === 10 || isBlank(first)) return null;
    lineEnd = text.indexOf('\n', valueStart);
    if (lineEnd < 0) lineEnd = text.length;
    let valueEnd = lineEnd;
    while (isBlank(text.charCodeAt(valueEnd - 1))) valueEnd--;
    read[i] = text.slice(valueStart, valueEnd);
    lineEnds?.push(lineEnd);
  }
  let next: StationHeader | null = null;
  for (let lineStart = lineEnd + 1; lineStart < text.length; lineStart = lineEnd + 1) {
    lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const start = skipBlanks(text, lineStart, lineEnd);
    if (start === lineEnd) continue;
    next = stationHeaderAt(text, start, lineEnd);
    if (next === null) return null;
    break;
  }
  if (layout.shape === undefined) layout.shape = recordShape(layout.keys);
  if (layout.shape === null) {
    // A dump whose stations print such keys is read line by line.
    search.left = 0;
    return null;
  }
  if (lineEnds !== null) layout.runs = repeatedRuns(text, layout, header.body - 1, lineEnds);
  const { template, keys } = layout.shape;
  const station: StationRecord = { ...template };
  station.mac_addr = header.mac;
  for (let i = 0; i < keys.length; i++) storeField(station, i, keys[i]!, read[i]!);
  return { station, next };
}

/**
 * The runs of `layout` once a block was read with it: each longest sequence of fields whose value
 * was the layout's, as the text of its lines, from the lead of its first field (which starts at the
 * previous field's line end, `firstLead` for the first field) to the end of its last line.
 */
function repeatedRuns(text: string, layout: BlockLayout, firstLead: number, lineEnds: number[]): (LineRun | null)[] {
  const { values, read } = layout;
  const runs: (LineRun | null)[] = values.map(() => null);
  let start = 0;
  while (start < values.length) {
    let end = start;
    while (end < values.length && read[end] === values[end]) end++;
    if (end > start) runs[start] = { text: text.slice(start === 0 ? firstLead : lineEnds[start - 1]!, lineEnds[end - 1]!), end };
    start = end + 1;
  }
  return runs;
}

/** Whether `expected` is in `text` at `at`; when not, the length the search went through is taken from `search`. */
function foundAt(text: string, expected: string, at: number, search: SearchBudget): boolean {
  const found = text.indexOf(expected, at);
  if (found === at) return true;
  search.left -= (found < 0 ? text.length : found) - at;
  return false;
}

/**
 * `station[key] = value` for the field at `position` of a predicted block, with a store of its own
 * for each of the first 48 positions. V8 remembers at each property store in the code which
 * property it wrote: a single store that writes all of a block's keys gives up on that and looks
 * each key up, which costs about as much as finding the line, while a store per position writes the
 * same key station after station, fast.
 */
function storeField(station: StationRecord, position: number, key: string, value: string): void {
  switch (position) {
    case 0:
      station[key] = value;
      return;
    case 1:
      station[key] = value;
      return;
    case 2:
      station[key] = value;
      return;
    case 3:
      station[key] = value;
      return;
    case 4:
      station[key] = value;
      return;
    case 5:
      station[key] = value;
      return;
    case 6:
      station[key] = value;
      return;
    case 7:
      station[key] = value;
      return;
    case 8:
      station[key] = value;
      return;
    case 9:
      station[key] = value;
      return;
    case 10:
      station[key] = value;
      return;
    case 11:
      station[key] = value;
      return;
    case 12:
      station[key] = value;
      return;
    case 13:
      station[key] = value;
      return;
    case 14:
      station[key] = value;
      return;
    case 15:
      station[key] = value;
      return;
    case 16:
      station[key] = value;
      return;
    case 17:
      station[key] = value;
      return;
    case 18:
      station[key] = value;
      return;
    case 19:
      station[key] = value;
      return;
    case 20:
      station[key] = value;
      return;
    case 21:
      station[key] = value;
      return;
    case 22:
      station[key] = value;
      return;
    case 23:
      station[key] = value;
      return;
    case 24:
      station[key] = value;
      return;
    case 25:
      station[key] = value;
      return;
    case 26:
      station[key] = value;
      return;
    case 27:
      station[key] = value;
      return;
    case 28:
      station[key] = value;
      return;
    case 29:
      station[key] = value;
      return;
    case 30:
      station[key] = value;
      return;
    case 31:
      station[key] = value;
      return;
    case 32:
      station[key] = value;
      return;
    case 33:
      station[key] = value;
      return;
    case 34:
      station[key] = value;
      return;
    case 35:
      station[key] = value;
      return;
    case 36:
      station[key] = value;
      return;
    case 37:
      station[key] = value;
      return;
    case 38:
      station[key] = value;
      return;
    case 39:
      station[key] = value;
      return;
    case 40:
      station[key] = value;
      return;
    case 41:
      station[key] = value;
      return;
    case 42:
      station[key] = value;
      return;
    case 43:
      station[key] = value;
      return;
    case 44:
      station[key] = value;
      return;
    case 45:
      station[key] = value;
      return;
    case 46:
      station[key] = value;
      return;
    case 47:
      station[key] = value;
      return;
    default:
      station[key] = value;
  }
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

/** The first position from `from` on, before `to`, that is not blank; `to` when there is none. */
function skipBlanks(text: string, from: number, to: number): number {
  while (from < to && isBlank(text.charCodeAt(from))) from++;
  return from;
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
  return blocksByHeader(text, (line) => STATION_HEADER.exec(line.trimStart())?.[1] ?? null);
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
