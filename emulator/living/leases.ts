import { ipv4Text } from '../../functions/parsers/ipv4.ts';
import { draw } from '../seeded.ts';
import type { Segment, Session } from './sessions.ts';

/*
 * The DHCP leases of an access point's network as dnsmasq would keep them: a station that joins asks
 * for a lease a few seconds later, renews it every half lease while it stays, and the lease runs out
 * a lease after the last renewal. A lease longer than a day (or infinite) is given back when the
 * station leaves, which keeps what a read looks back on bounded. Addresses are dnsmasq's way: from a
 * hash of the MAC, the next free one when that is taken by an earlier lease still held.
 */

/** A day, ms: leases up to this long run out; longer ones are given back when the station leaves. */
export const LONGEST_RUN_OUT_MS = 86_400_000;

/** Where a network's leases come from: its DHCP range and lease time. */
export interface LeasePool {
  /** The first address of the range, as a number, and how many it holds. */
  first: number;
  size: number;
  /** The lease time, ms; Infinity for `infinite`. */
  leaseMs: number;
}

/**
 * When a lease is granted and renewed, and when it ends: renewal n (from `from` to `to`) is at
 * `granted + n × half` and makes the lease expire a lease time after it.
 */
export interface LeaseTimes {
  /** Since when it is in the file: its grant, or -Infinity for a recorded lease. */
  since: number;
  granted: number;
  half: number;
  leaseMs: number;
  /** The first and last renewal that happen (none when from > to). */
  from: number;
  to: number;
  /** When it leaves the file: run out, or given back. */
  ends: number;
  /** Given back when the station leaves rather than run out: its expiry is the one written at its grant (null: infinite). */
  heldWhileConnected: boolean;
}

/** A lease of the living network: whose, its times, and its address once allocated (null: the range was full). */
export interface ModelLease {
  mac: string;
  hostname: string | null;
  times: LeaseTimes;
  ip: number | null;
}

/** The lease a segment's station asks for, 1 to 4 s after it joined; null when it left before. */
export function segmentLease(seed: number, segment: Segment, pool: LeasePool): LeaseTimes | null {
  const granted = segment.start + 1000 + Math.floor(draw(seed, 'dhcp', segment.id, segment.index) * 3000);
  return granted < segment.end ? leaseTimes(granted, pool.leaseMs, segment.end, 1) : null;
}

/**
 * The times of a lease granted at `granted` whose station stays until `until`: renewals from `from`
 * on while it stays; one longer than a day is given back at `until`.
 */
export function leaseTimes(granted: number, leaseMs: number, until: number, from: number): LeaseTimes {
  const half = leaseMs / 2;
  if (leaseMs > LONGEST_RUN_OUT_MS) return { since: granted, granted, half, leaseMs, from: 1, to: 0, ends: until, heldWhileConnected: true };
  // Renewals at granted + n × half before the station leaves.
  const to = until === Infinity ? Infinity : Math.ceil((until - granted) / half) - 1;
  return { since: granted, granted, half, leaseMs, from, to, ends: to < from ? granted + leaseMs : granted + to * half + leaseMs, heldWhileConnected: false };
}

/**
 * The times of a recorded lease that expires at `expires` (ms of emulated time): renewed every half
 * lease from after the start while its station, connected when recorded, stays (until `until`; a
 * lease of no station left has `until` 0).
 */
export function recordedLeaseTimes(expires: number, leaseMs: number, until: number): LeaseTimes {
  const granted = expires - leaseMs;
  if (leaseMs > LONGEST_RUN_OUT_MS || until <= 0)
    return { since: -Infinity, granted, half: leaseMs / 2, leaseMs, from: 1, to: 0, ends: expires, heldWhileConnected: false };
  // The first renewal after the start (renewals due before it are what the recording shows).
  const from = Math.max(1, Math.floor(-granted / (leaseMs / 2)) + 1);
  return { ...leaseTimes(granted, leaseMs, until, from), since: -Infinity };
}

/** Whether a lease is in the file at `t`. */
export function held(times: LeaseTimes, t: number): boolean {
  return times.since <= t && t < times.ends;
}

/** When a lease held at `t` expires, ms (null: infinite). */
export function expiryAt(times: LeaseTimes, t: number): number | null {
  if (times.heldWhileConnected) return times.leaseMs === Infinity ? null : times.granted + times.leaseMs;
  const renewed = Math.min(times.to, Math.floor((t - times.granted) / times.half));
  return renewed >= times.from ? times.granted + renewed * times.half + times.leaseMs : times.granted + times.leaseMs;
}

/** The renewals of a lease in (a, b], in time order. */
export function renewalsIn(times: LeaseTimes, a: number, b: number): number[] {
  const first = Math.max(times.from, Math.floor((a - times.granted) / times.half) + 1);
  const last = Math.min(times.to, Math.floor((b - times.granted) / times.half));
  const found: number[] = [];
  for (let n = first; n <= last; n++) found.push(times.granted + n * times.half);
  return found;
}

/**
 * The leases of the stations of `sessions` on access point `ap`, each with an address: in the order
 * they were granted, each takes the address its MAC hashes to, or the next one not held at its grant
 * by a lease before it or a recorded one (`taken`: each recorded address and when it is free again).
 */
export function allocate(seed: number, sessions: readonly Session[], ap: string, pool: LeasePool, taken: ReadonlyMap<number, number>): ModelLease[] {
  const leases: ModelLease[] = [];
  for (const session of sessions) {
    for (const segment of session) {
      if (segment.ap !== ap || segment.recorded !== null) continue;
      const times = segmentLease(seed, segment, pool);
      if (times !== null) leases.push({ mac: segment.mac, hostname: segment.hostname, times, ip: null });
    }
  }
  leases.sort((a, b) => a.times.granted - b.times.granted || (a.mac < b.mac ? -1 : 1));
  for (const [index, lease] of leases.entries()) {
    const at = lease.times.granted;
    const busy = new Set<number>();
    for (const [ip, free] of taken) if (free > at) busy.add(ip);
    for (const before of leases.slice(0, index)) if (before.ip !== null && before.times.ends > at) busy.add(before.ip);
    const preferred = Math.floor(draw(seed, 'address', lease.mac) * pool.size);
    for (let i = 0; i < pool.size && lease.ip === null; i++) {
      const ip = pool.first + ((preferred + i) % pool.size);
      if (!busy.has(ip)) lease.ip = ip;
    }
  }
  return leases.filter((lease) => lease.ip !== null);
}

/** A lease line as dnsmasq writes it: expiry (epoch seconds, 0 for infinite), MAC, address, host name or `*`, client id. */
export function leaseLine(expires: number | null, lease: ModelLease): string {
  return `${expires ?? 0} ${lease.mac} ${ipv4Text(lease.ip!)} ${lease.hostname ?? '*'} 01:${lease.mac}\n`;
}
