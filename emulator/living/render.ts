import { stationKey } from '../../functions/parsers/iw-station.ts';
import type { StationNow } from './station.ts';

/*
 * A station's block of `iw … station dump` and of hostapd's `all_sta`, written over a template block
 * (the station's own recorded block, another of the scenario, or templates.ts): every line keeps its
 * key, indent and separator, and only the values that move are rewritten, so the parsers read them
 * as they read a device's.
 */

/** What a station's block says now, besides its counters and signal. */
export interface StationView {
  mac: string;
  /** The interface of `Station <mac> (on <interface>)`; null keeps the template's. */
  iface: string | null;
  now: StationNow;
  /** Its bit rates as iw prints them; null keeps the template's. */
  txBitrate: string | null;
  rxBitrate: string | null;
  /** Time on air, µs. */
  txDurationUs: number;
  rxDurationUs: number;
  /** The device's uptime when it associated, s (null keeps the template's), and the wall times of iw's `associated at` and `current time`, ms since the epoch. */
  associatedBoottime: number | null;
  associatedAt: number;
  currentTime: number;
}

/** `Station <mac> (on <interface>)`. */
const IW_HEADER = /^(\s*Station )(\S+)( \(on )([^)]*)(\).*)$/;
/** `<indent><key>:<separator><value>`. */
const IW_FIELD = /^(\s*)([^:]+)(:\s*)(.*)$/;

/** One station's block of iw's station dump, over `template` (a block of one station, header first). */
export function iwBlock(template: string, view: StationView): string {
  const { now } = view;
  const parsed = iwTemplate(template);
  const signal = (text: string) => shifted(text, now.signal - (parsed.signal ?? now.signal));
  const average = (text: string) => shifted(text, now.signalAvg - (parsed.average ?? now.signalAvg));
  const values: Record<string, (value: string) => string> = {
    inactive_time: () => `${now.inactiveMs} ms`,
    rx_bytes: () => String(now.rxBytes),
    rx_packets: () => String(now.rxPackets),
    tx_bytes: () => String(now.txBytes),
    tx_packets: () => String(now.txPackets),
    tx_retries: () => String(now.txRetries),
    tx_failed: () => String(now.txFailed),
    rx_drop_misc: () => String(now.rxDropMisc),
    signal,
    signal_avg: average,
    last_ack_signal: signal,
    avg_ack_signal: average,
    tx_bitrate: (value) => view.txBitrate ?? value,
    rx_bitrate: (value) => view.rxBitrate ?? value,
    tx_duration: () => `${view.txDurationUs} us`,
    rx_duration: () => `${view.rxDurationUs} us`,
    connected_time: () => `${Math.floor(now.connectedMs / 1000)} seconds`,
    'associated_at_[boottime]': (value) => (view.associatedBoottime === null ? value : `${view.associatedBoottime.toFixed(3)}s`),
    associated_at: () => `${view.associatedAt} ms`,
    current_time: () => `${view.currentTime} ms`,
  };
  let block = '';
  for (const { text, end, header, field } of parsed.lines) {
    const rewrite = field === null ? undefined : values[field.key];
    if (header !== null) block += `${header.lead}${view.mac}${header.on}${view.iface ?? header.iface}${header.rest}${end}`;
    else if (rewrite !== undefined) block += `${field!.lead}${rewrite(field!.value)}${end}`;
    else block += text;
  }
  return block;
}

/** A template block of iw's, split into lines once: the header's parts, each field's key (`stationKey`) and value. */
interface IwTemplate {
  lines: {
    /** The line as it is, its end included, and its end alone. */
    text: string;
    end: string;
    header: { lead: string; on: string; iface: string; rest: string } | null;
    field: { lead: string; key: string; value: string } | null;
  }[];
  /** The numbers of its `signal` and `signal avg` (null: none), which a station's own move it by. */
  signal: number | null;
  average: number | null;
}

/** The templates split so far, by their text: a handful per scenario. */
const iwTemplates = new Map<string, IwTemplate>();

function iwTemplate(template: string): IwTemplate {
  const known = iwTemplates.get(template);
  if (known !== undefined) return known;
  const lines = (template.match(/[^\n]*\n|[^\n]+$/g) ?? []).map((text) => {
    const end = text.endsWith('\n') ? '\n' : '';
    const line = text.slice(0, text.length - end.length);
    const header = IW_HEADER.exec(line);
    const field = header === null ? IW_FIELD.exec(line) : null;
    return {
      text,
      end,
      header: header === null ? null : { lead: header[1]!, on: header[3]!, iface: header[4]!, rest: header[5]! },
      field: field === null ? null : { lead: `${field[1]}${field[2]}${field[3]}`, key: stationKey(field[2]!), value: field[4]! },
    };
  });
  const number = (key: string) => {
    const value = lines.find((line) => line.field?.key === key)?.field?.value;
    const found = value === undefined ? undefined : /-?\d+/.exec(value)?.[0];
    return found === undefined ? null : Number(found);
  };
  const parsed = { lines, signal: number('signal'), average: number('signal_avg') };
  if (iwTemplates.size >= 64) iwTemplates.clear();
  iwTemplates.set(template, parsed);
  return parsed;
}

/** One station's reply of hostapd's `all_sta`, over `template` (its MAC line first). */
export function allStaBlock(template: string, view: StationView): string {
  const { now } = view;
  const templateMac = template.slice(0, template.indexOf('\n')).trim().toLowerCase();
  const signal = Number(/^signal=(-?\d+)$/m.exec(template)?.[1] ?? now.signal);
  const values: Record<string, (value: string) => string> = {
    rx_packets: () => String(now.rxPackets),
    tx_packets: () => String(now.txPackets),
    rx_bytes: () => String(now.rxBytes),
    tx_bytes: () => String(now.txBytes),
    inactive_msec: () => String(now.inactiveMs),
    signal: () => String(now.signal),
    last_ack_signal: (value) => shifted(value, now.signal - signal),
    connected_time: () => String(Math.floor(now.connectedMs / 1000)),
  };
  return rewriteLines(template, (line) => {
    if (line.trim().toLowerCase() === templateMac) return view.mac;
    const equals = line.indexOf('=');
    if (equals < 0) return line;
    const key = line.slice(0, equals);
    const value = line.slice(equals + 1);
    const rewrite = values[key];
    if (rewrite !== undefined) return `${key}=${rewrite(value)}`;
    return value.toLowerCase() === templateMac ? `${key}=${view.mac}` : line;
  });
}

/** Each line of a text rewritten (line ends kept). */
function rewriteLines(text: string, rewrite: (line: string) => string): string {
  return text
    .split('\n')
    .map((line, index, lines) => (index === lines.length - 1 && line === '' ? line : rewrite(line)))
    .join('\n');
}

/** Every whole number of `text` moved by `by`. */
function shifted(text: string, by: number): string {
  return by === 0 ? text : text.replace(/-?\d+/g, (number) => String(Number(number) + by));
}
