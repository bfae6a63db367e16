// npm run bench (vitest bench): the parse time of an iw station dump of 256 stations and of a dnsmasq
// lease file of 10,000 leases, each beside the time of merely splitting the same text into lines.
// test/bench/ratio-reporter.ts prints each parse time as a multiple of the split, as information: there
// is no goal for it (the former "under 3× the split" was withdrawn). The inputs are generated from the
// formats' rules, as a flat string like a device's output.
// A `reference:` bench is no parser: it shows a floor that no parser can beat, measured in the same run
// (see docs/decisions/0012-parser-speed-against-a-line-split.md).
import { bench, describe } from 'vitest';
import { parseLeases } from '../../functions/parsers/dnsmasq-leases.ts';
import { parseStationDump } from '../../functions/parsers/iw-station.ts';

/** A MAC address from a number, as iw and dnsmasq print one. */
function mac(n: number): string {
  const bytes = [0x02, 0x5e, (n >> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/** `iw dev wlan0 station dump` for `count` stations: the lines iw 6.x prints for a VHT/HE access point. */
function stationDump(count: number): string {
  let text = '';
  for (let n = 0; n < count; n++) {
    const signal = -40 - (n % 50);
    const rate = n % 2 === 0 ? `866.7 MBit/s VHT-MCS 9 80MHz short GI VHT-NSS 2` : `1200.9 MBit/s 80MHz HE-MCS 11 HE-NSS 2 HE-GI 0 HE-DCM 0`;
    text +=
      `Station ${mac(n)} (on wlan0)\n` +
      `\tinactive time:\t${n * 10} ms\n\trx bytes:\t${n * 1000 + 17}\n\trx packets:\t${n * 10 + 3}\n` +
      `\ttx bytes:\t${n * 2000 + 5}\n\ttx packets:\t${n * 20 + 1}\n\ttx retries:\t${n % 7}\n\ttx failed:\t${n % 3}\n` +
      `\tbeacon loss:\t0\n\trx drop misc:\t${n % 11}\n` +
      `\tsignal:  \t${signal} [${signal - 1}, ${signal - 3}] dBm\n\tsignal avg:\t${signal + 1} [${signal}, ${signal - 2}] dBm\n` +
      `\ttx bitrate:\t${rate}\n\ttx duration:\t${n * 13} us\n\trx bitrate:\t${rate}\n\trx duration:\t${n * 7} us\n` +
      `\tlast ack signal:${signal} dBm\n\tavg ack signal:\t${signal} dBm\n\tairtime weight: 256\n\texpected throughput:\t${n % 400}.500Mbps\n` +
      `\tauthorized:\tyes\n\tauthenticated:\tyes\n\tassociated:\tyes\n\tpreamble:\tshort\n\tWMM/WME:\tyes\n\tMFP:\t\tno\n\tTDLS peer:\tno\n` +
      `\tDTIM period:\t2\n\tbeacon interval:100\n\tshort slot time:yes\n\tconnected time:\t${n * 60} seconds\n` +
      `\tassociated at [boottime]:\t${n}.123s\n\tassociated at:\t${1731975464052 + n} ms\n\tcurrent time:\t1731975697273 ms\n`;
  }
  return text;
}

/** A dnsmasq lease file of `count` IPv4 leases: some without hostname, some without client id, some infinite. */
function leaseFile(count: number): string {
  let text = '';
  for (let n = 0; n < count; n++) {
    const expires = n % 97 === 0 ? 0 : 1700000000 + n;
    const hostname = n % 5 === 0 ? '*' : `host-${n}`;
    const clientId = n % 3 === 0 ? '*' : `01:${mac(n)}`;
    text += `${expires} ${mac(n)} 10.${(n >> 16) & 0xff}.${(n >> 8) & 0xff}.${n & 0xff} ${hostname} ${clientId}\n`;
  }
  return text;
}

/** Concatenation builds a rope; a device's output read from a pipe or file is one flat string. */
const flat = (text: string) => Buffer.from(text).toString();

const DUMP = flat(stationDump(256));
const LEASES = flat(leaseFile(10_000));

/**
 * Each group is timed in ROUNDS rounds, every bench of the group in turn within a round: a round's
 * benches run moments apart, under the same load, so test/bench/ratio-reporter.ts takes each round's
 * ratio to the split and prints their median. (One long run of each bench in turn let load that came
 * and went on the machine fall on one bench and not the other: the ratios of runs differed by 2×.)
 */
const ROUNDS = 5;
const OPTIONS = { time: 300, warmupTime: 100 };

/** Keeps each result alive, so the engine cannot skip the work. */
let sink: unknown;

/** The benches of a group, each by name, registered once per round (`<name> (round <n>)`). */
function rounds(benches: Record<string, () => unknown>): void {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, run] of Object.entries(benches)) bench(`${name} (round ${round})`, () => void (sink = run()), OPTIONS);
  }
}

describe(`iw station dump, 256 stations (${DUMP.split('\n').length} lines)`, () => {
  rounds({ 'split into lines: iw dump': () => DUMP.split('\n'), parseStationDump: () => parseStationDump(DUMP) });
});

/** Where each lease line of `text` starts and where its five fields end: six positions a line. */
function leaseFieldEnds(text: string): Int32Array {
  const positions: number[] = [];
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    const a = text.indexOf(' ', start);
    const b = text.indexOf(' ', a + 1);
    const c = text.indexOf(' ', b + 1);
    const d = text.indexOf(' ', c + 1);
    positions.push(start, a, b, c, d, end);
    start = end + 1;
  }
  return Int32Array.from(positions);
}

/**
 * The lease records of `text` built from field positions found beforehand: the strings and objects a
 * parser must create, with no searching, no checks and no optional fields. Its time is the floor of
 * any parser that answers records.
 */
function buildLeaseRecords(text: string, ends: Int32Array): object[] {
  const records: object[] = [];
  for (let i = 0; i < ends.length; i += 6) {
    const [start, a, b, c, d, end] = [ends[i]!, ends[i + 1]!, ends[i + 2]!, ends[i + 3]!, ends[i + 4]!, ends[i + 5]!];
    records.push({
      expires: text.slice(start, a),
      mac_addr: text.slice(a + 1, b),
      ip_addr: text.slice(b + 1, c),
      hostname: text.slice(c + 1, d),
      client_id: text.slice(d + 1, end),
    });
  }
  return records;
}

const LEASE_FIELD_ENDS = leaseFieldEnds(LEASES);

describe(`dnsmasq lease file, 10,000 leases (${(LEASES.length / 1024).toFixed(0)} KB)`, () => {
  rounds({
    'split into lines: leases': () => LEASES.split('\n'),
    parseLeases: () => parseLeases(LEASES),
    'reference: build the records alone (field positions known)': () => buildLeaseRecords(LEASES, LEASE_FIELD_ENDS),
  });
});
