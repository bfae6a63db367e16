import { decimal, fields } from './numbers.ts';

/** One interface's counters since boot, with psutil's `net_io_counters()` names. */
export interface InterfaceCounters {
  name: string;
  bytes_sent: number;
  bytes_recv: number;
  packets_sent: number;
  packets_recv: number;
  errin: number;
  errout: number;
  dropin: number;
  dropout: number;
}

/** The counter names without the interface name. */
export type IoCounters = Omit<InterfaceCounters, 'name'>;

/**
 * Parses /proc/net/dev: two header lines (they contain `|`), then `iface: ` and 16 numbers, 8 for
 * receive (bytes packets errs drop fifo frame compressed multicast) and 8 for transmit (bytes packets
 * errs drop fifo colls carrier compressed). When the numbers are wide the kernel prints no space
 * after the colon (`eth0:123456789 …`). Lines that do not fit are skipped.
 *
 * @example
 * parseNetDev('  eth0:1000 10 0 0 0 0 0 0 2000 20 0 0 0 0 0 0\n')
 * // [{ name: 'eth0', bytes_recv: 1000, packets_recv: 10, …, bytes_sent: 2000, packets_sent: 20, … }]
 */
export function parseNetDev(text: string): InterfaceCounters[] {
  const interfaces: InterfaceCounters[] = [];
  for (const line of text.split('\n')) {
    if (line.includes('|')) continue;
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const numbers = fields(line.slice(colon + 1)).map(decimal);
    if (name === '' || numbers.length < 16 || numbers.some((n) => n === null)) continue;
    const n = numbers as number[];
    interfaces.push({
      name,
      bytes_sent: n[8]!,
      bytes_recv: n[0]!,
      packets_sent: n[9]!,
      packets_recv: n[1]!,
      errin: n[2]!,
      errout: n[10]!,
      dropin: n[3]!,
      dropout: n[11]!,
    });
  }
  return interfaces;
}

/**
 * Totals over interfaces (psutil's `net_io_counters()` without `pernic`: every interface, loopback too).
 *
 * @example
 * sumCounters([]) // { bytes_sent: 0, bytes_recv: 0, … }
 */
export function sumCounters(interfaces: InterfaceCounters[]): IoCounters {
  const total: IoCounters = { bytes_sent: 0, bytes_recv: 0, packets_sent: 0, packets_recv: 0, errin: 0, errout: 0, dropin: 0, dropout: 0 };
  for (const counters of interfaces) {
    for (const key of Object.keys(total) as (keyof IoCounters)[]) total[key] += counters[key];
  }
  return total;
}
