import { ipv4Number, ipv4Text } from '../../functions/parsers/ipv4.ts';
import type { AccessPoint } from './access-point.ts';
import { allocate, expiryAt, held, leaseLine, LONGEST_RUN_OUT_MS, recordedLeaseTimes, type LeaseTimes, type ModelLease } from './leases.ts';
import type { Session } from './sessions.ts';

/*
 * An access point's lease file, living: the recorded leases, renewed while their station (recorded
 * as connected) stays and gone once they run out, and the leases of the stations that joined since,
 * newest first as dnsmasq writes them. Lines that are not a lease with a time (`duid`, an infinite
 * lease, a lease length written by a dnsmasq without a real-time clock) stay as recorded.
 */

/** One line of a recorded lease file, and its times when it is a lease that runs out. */
interface RecordedLine {
  text: string;
  /** The expiry's position in the line, and the lease's times; null for a line kept as it is. */
  lease: { at: number; length: number; mac: string | null; ip: string; hostname: string | null; times: LeaseTimes } | null;
}

/** The leases of an access point: the recorded lines and the leases given since. */
export interface NetworkLeases {
  recorded: RecordedLine[];
  model: ModelLease[];
}

/** How far back a lease file looks for stays whose lease may still be held, ms: twice (longest stay + lease), for the addresses of the leases before. */
export function leaseLookback(ap: AccessPoint, maxStayMs: number): number {
  return ap.pool === null ? 0 : 2 * (maxStayMs + Math.min(ap.pool.leaseMs, LONGEST_RUN_OUT_MS) + 4000);
}

/**
 * The leases of access point `ap` with the stays of `sessions` (those of the look-back before the
 * time asked), for a recording taken at `recordingAtMs` (ms since the epoch; null: unknown, its
 * leases are kept as recorded).
 */
export function networkLeases(seed: number, ap: AccessPoint, sessions: readonly Session[], recording: { atMs: number; bootMs: number } | null): NetworkLeases {
  const recorded = recordedLines(ap, sessions, recording);
  const taken = new Map<number, number>();
  for (const line of recorded) {
    const ip = line.lease === null ? undefined : ipv4Number(line.lease.ip);
    if (ip !== undefined) taken.set(ip, line.lease!.times.ends);
  }
  return { recorded, model: ap.pool === null ? [] : allocate(seed, sessions, ap.key, ap.pool, taken) };
}

/** The lease file at `t`: the leases given since the start (newest first), then the recorded lines still there. `wall(ms)` is the epoch second of a time. */
export function leaseFileAt(leases: NetworkLeases, t: number, wall: (ms: number) => number): string {
  const model = leases.model
    .filter((lease) => held(lease.times, t))
    .sort((a, b) => b.times.granted - a.times.granted)
    .map((lease) => leaseLine(secondsOf(expiryAt(lease.times, t), wall), lease));
  const recorded = leases.recorded.flatMap(({ text, lease }) => {
    if (lease === null) return [text];
    if (!held(lease.times, t)) return [];
    return [`${text.slice(0, lease.at)}${secondsOf(expiryAt(lease.times, t), wall) ?? 0}${text.slice(lease.at + lease.length)}`];
  });
  return [...model, ...recorded].join('');
}

/** A lease in the shape of its events: whose, where, and its times. */
export interface LeaseSubject {
  mac: string;
  ip: string;
  hostname: string | null;
  times: LeaseTimes;
  /** Whether the lease was given after the start (its grant is news). */
  given: boolean;
}

/** Every IPv4 lease of an access point with a MAC, recorded or given, for its events. */
export function leaseSubjects(leases: NetworkLeases): LeaseSubject[] {
  const recorded = leases.recorded.flatMap(({ lease }) =>
    lease === null || lease.mac === null ? [] : [{ mac: lease.mac, ip: lease.ip, hostname: lease.hostname, times: lease.times, given: false }],
  );
  const model = leases.model.map((lease) => ({
    mac: lease.mac,
    ip: ipv4Text(lease.ip!),
    hostname: lease.hostname,
    times: lease.times,
    given: true,
  }));
  return [...recorded, ...model];
}

/** An expiry in epoch seconds, null (infinite) kept. */
function secondsOf(ms: number | null, wall: (ms: number) => number): number | null {
  return ms === null ? null : wall(ms);
}

/** A lease line: expiry, MAC (or IAID), address, host name. */
const LEASE_LINE = /^([ \t]*)(\d+)[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\S+)/;

/** The recorded lease file's lines, each lease that runs out with its times: renewed while its station, recorded as connected here, stays. */
function recordedLines(ap: AccessPoint, sessions: readonly Session[], recording: { atMs: number; bootMs: number } | null): RecordedLine[] {
  if (ap.leases === null) return [];
  const stays = new Map<string, number>();
  for (const session of sessions) {
    const first = session[0]!;
    if (first.ap === ap.key && first.recorded !== null) stays.set(first.mac, first.end);
  }
  let ipv6 = false;
  return (ap.leases.match(/[^\n]*\n|[^\n]+$/g) ?? []).map((text) => {
    const match = LEASE_LINE.exec(text);
    if (text.trimStart().startsWith('duid')) ipv6 = true;
    const expires = Number(match?.[2]);
    // Infinite leases, lease lengths of a dnsmasq without a clock, and anything but a lease are kept.
    if (match === null || recording === null || expires === 0 || expires * 1000 < recording.bootMs) return { text, lease: null };
    const ip = match[4]!;
    const mac = ipv6 || ip.includes(':') ? null : match[3]!.toLowerCase();
    const leaseMs = ap.pool?.leaseMs ?? LONGEST_RUN_OUT_MS * 2;
    const times = recordedLeaseTimes(expires * 1000 - recording.atMs, leaseMs, mac === null ? 0 : (stays.get(mac) ?? 0));
    return { text, lease: { at: match[1]!.length, length: match[2]!.length, mac, ip, hostname: match[5] === '*' ? null : match[5]!, times } };
  });
}
