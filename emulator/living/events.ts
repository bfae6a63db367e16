import type { DeviceEventBody } from '../../functions/core/device/index.ts';
import type { AccessPoint } from './access-point.ts';
import { leaseSubjects, type NetworkLeases } from './lease-file.ts';
import { expiryAt, renewalsIn } from './leases.ts';
import type { Session } from './sessions.ts';

/** Something that happened in the living network: when (ms of emulated time), the device event, and hostapd's event of it on an access point. */
export interface Happening {
  at: number;
  body: DeviceEventBody;
  hostapd: { ap: AccessPoint; text: string } | null;
}

/**
 * What happened in (a, b], in time order (what happened at the same time in a fixed order): stations
 * that joined (`station.connected`, hostapd's `AP-STA-CONNECTED`), left (`station.disconnected`,
 * `AP-STA-DISCONNECTED`) or roamed (left one access point, joined the other, then `station.roamed`,
 * as serve's sources tell it), and leases given, renewed and run out or given back. A station a
 * request disconnected was told then, not here. `wall(ms)` is the epoch second of a time.
 */
export function happenings(
  aps: readonly AccessPoint[],
  sessions: readonly Session[],
  leases: ReadonlyMap<string, NetworkLeases>,
  a: number,
  b: number,
  wall: (ms: number) => number,
): Happening[] {
  const byKey = new Map(aps.map((ap) => [ap.key, ap]));
  const found: Happening[] = [];
  const within = (at: number) => a < at && at <= b;
  const station = (kind: 'station.connected' | 'station.disconnected', ap: AccessPoint, mac: string, at: number) =>
    found.push({
      at,
      body: { kind, chute: ap.chute, network: ap.network, mac },
      hostapd: { ap, text: `${kind === 'station.connected' ? 'AP-STA-CONNECTED' : 'AP-STA-DISCONNECTED'} ${mac}` },
    });
  for (const session of sessions) {
    for (const segment of session) {
      const ap = byKey.get(segment.ap);
      if (ap === undefined) continue;
      const from = segment.from === null ? undefined : byKey.get(segment.from);
      if (within(segment.start)) {
        if (from !== undefined) station('station.disconnected', from, segment.mac, segment.start);
        station('station.connected', ap, segment.mac, segment.start);
        if (from !== undefined) {
          const body: DeviceEventBody = {
            kind: 'station.roamed',
            chute: ap.chute,
            network: ap.network,
            mac: segment.mac,
            from: { chute: from.chute, network: from.network },
          };
          found.push({ at: segment.start, body, hostapd: null });
        }
      }
      if (within(segment.end) && segment.endsBy === 'left') station('station.disconnected', ap, segment.mac, segment.end);
    }
  }
  for (const [key, networkLeases] of leases) {
    const ap = byKey.get(key)!;
    for (const lease of leaseSubjects(networkLeases)) {
      const tell = (kind: 'lease.added' | 'lease.renewed' | 'lease.expired', at: number, expires: number | null) =>
        found.push({
          at,
          body: {
            kind,
            chute: ap.chute,
            network: ap.network,
            ip: lease.ip,
            mac: lease.mac,
            hostname: lease.hostname,
            expires: expires === null ? null : new Date(wall(expires) * 1000).toISOString(),
          },
          hostapd: null,
        });
      const { times } = lease;
      if (lease.given && within(times.granted)) tell('lease.added', times.granted, expiryAt(times, times.granted));
      for (const at of renewalsIn(times, a, b)) tell('lease.renewed', at, expiryAt(times, at));
      if (within(times.ends)) tell('lease.expired', times.ends, expiryAt(times, times.ends - 1));
    }
  }
  return found.sort((x, y) => x.at - y.at);
}
