import type { Device } from '../../../functions/core/device/index.ts';
import { parseLeases } from '../../../functions/parsers/dnsmasq-leases.ts';
import { looksOnChange } from './folder-watch.ts';
import { installedNetworks } from './installed-networks.ts';
import type { NetworkRef } from './roaming.ts';
import type { EventSource, Publish } from './source.ts';

export interface LeaseSourceOptions {
  chutes: Pick<Device, 'chuteNames' | 'chute'>;
  /** The host side of a chute network: its `leases()`, the lease file verbatim. */
  network: Device['network'];
  /** The folder of dnsmasq's lease files (`<run dir>/dnsmasq`), watched for their changes. */
  leaseDir: string;
  now?: () => number;
  log?: (text: string) => void;
}

/** A DHCP lease as the source keeps it. */
export interface TrackedLease {
  mac: string;
  ip: string;
  hostname: string | null;
  /** When it runs out, in milliseconds since the epoch; null for an infinite lease. */
  expires: number | null;
  /** Whether `lease.expired` was told of it. */
  expired: boolean;
}

/** A change of one lease, as an event tells it. */
export interface LeaseChange {
  kind: 'lease.added' | 'lease.renewed' | 'lease.expired';
  lease: TrackedLease;
}

/** The most leases kept of one network: dnsmasq's default `dhcp-lease-max`. Further lines of a file are not followed. */
export const MAX_LEASES = 1000;
/** How long the lease folder must be quiet before the files are read: dnsmasq writes a file in several steps. */
const DEBOUNCE_MS = 200;
/** The longest wait for the next expiry before the files are read again anyway. */
const MAX_EXPIRY_WAIT_MS = 3600_000;

/**
 * `lease.added`, `lease.renewed` and `lease.expired` from the dnsmasq lease file of every chute
 * network with DHCP: the folder of the files is watched, and after a change every file is read
 * again (`NetworkHost.leases`, parsed with `parseLeases`) and compared with what was read before
 * (`leaseChanges`). A lease whose expiry passes is told expired then, without waiting for dnsmasq to
 * drop it from the file; the leases of a network whose file or chute is gone are told expired too.
 * The leases already there when the source starts are no news.
 *
 * @example
 * const leases = followLeases({ chutes, network: device.network, leaseDir: '/var/lib/chutebox/networks/dnsmasq' }, publish);
 * await leases.stop();
 */
export function followLeases(options: LeaseSourceOptions, publish: Publish): EventSource {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((text: string) => console.error(text));
  const files = new Map<string, { at: NetworkRef; leases: Map<string, TrackedLease> }>();
  const looks = looksOnChange(options.leaseDir, DEBOUNCE_MS, look, (error) => log(`lease events: the lease files cannot be read: ${(error as Error).message}`));

  const tell = (at: NetworkRef, { kind, lease }: LeaseChange) =>
    publish({
      kind,
      ...at,
      ip: lease.ip,
      mac: lease.mac,
      hostname: lease.hostname,
      expires: lease.expires === null ? null : new Date(lease.expires).toISOString(),
    });

  /** Reads every lease file and tells what changed since the last read. */
  async function look(first: boolean): Promise<void> {
    const networks = (await installedNetworks(options.chutes)).filter((network) => network.target.leaseFile !== null);
    const seen = new Set<string>();
    for (const network of networks) {
      const file = network.target.leaseFile!;
      seen.add(file);
      let text: string | null;
      try {
        text = await options.network(network.target).leases();
      } catch (error) {
        log(`lease events: ${(error as Error).message}`);
        continue;
      }
      const known = files.get(file);
      const at = { chute: network.chute, network: network.name };
      const { changes, kept } = leaseChanges(known?.leases ?? new Map(), leasesOf(text ?? ''), now());
      files.set(file, { at, leases: kept });
      if (known !== undefined || !first) for (const change of changes) tell(at, change);
    }
    for (const [file, { at, leases }] of files) {
      if (seen.has(file)) continue;
      for (const lease of leases.values()) if (!lease.expired) tell(at, { kind: 'lease.expired', lease });
      files.delete(file);
    }
    nextExpiry();
  }

  /** Reads the files again when the first lease that has not run out is due to. */
  function nextExpiry(): void {
    let next = Infinity;
    for (const { leases } of files.values())
      for (const lease of leases.values()) if (!lease.expired && lease.expires !== null) next = Math.min(next, lease.expires);
    looks.againIn(next === Infinity ? null : Math.min(Math.max(next - now(), 0) + 1, MAX_EXPIRY_WAIT_MS));
  }

  return { ready: looks.ready, stop: looks.stop };
}

/**
 * The IPv4 leases of a lease file (`parseLeases`) by `<mac> <ip>`, at most `MAX_LEASES`; IPv6 leases,
 * which name no MAC, are left out.
 *
 * @example
 * leasesOf('1700003600 5c:f7:e6:1c:36:f7 10.128.0.23 phone 01:5c:f7:e6:1c:36:f7\n')
 * // Map { '5c:f7:e6:1c:36:f7 10.128.0.23' => { mac: '5c:f7:e6:1c:36:f7', ip: '10.128.0.23', hostname: 'phone', expires: 1700003600000, expired: false } }
 */
export function leasesOf(text: string): Map<string, TrackedLease> {
  const leases = new Map<string, TrackedLease>();
  for (const record of parseLeases(text)) {
    if (record.mac_addr === undefined) continue;
    if (leases.size >= MAX_LEASES) break;
    const mac = record.mac_addr.toLowerCase();
    const expires = record.expires === '0' ? null : Number(record.expires) * 1000;
    leases.set(`${mac} ${record.ip_addr}`, { mac, ip: record.ip_addr, hostname: record.hostname === '*' ? null : record.hostname, expires, expired: false });
  }
  return leases;
}

/**
 * What changed between two reads of a lease file, and the leases to keep for the next one:
 * - a MAC and IP not read before: `lease.added` (also when a lease that ran out is given again);
 * - the same MAC and IP with a later expiry: `lease.renewed`;
 * - a lease gone from the file: `lease.expired`, unless that was told already;
 * - a lease whose expiry is at or before `now`: `lease.expired`, once.
 *
 * @example
 * leaseChanges(before, leasesOf(text), Date.now()) // { changes: [{ kind: 'lease.renewed', lease: { … } }], kept: Map { … } }
 */
export function leaseChanges(
  before: ReadonlyMap<string, TrackedLease>,
  after: ReadonlyMap<string, TrackedLease>,
  now: number,
): { changes: LeaseChange[]; kept: Map<string, TrackedLease> } {
  const changes: LeaseChange[] = [];
  const kept = new Map<string, TrackedLease>();
  for (const [key, lease] of after) {
    const old = before.get(key);
    const sameLine = old !== undefined && old.expires === lease.expires;
    if (old === undefined || (old.expired && !sameLine)) changes.push({ kind: 'lease.added', lease });
    else if (!old.expired && later(lease.expires, old.expires)) changes.push({ kind: 'lease.renewed', lease });
    kept.set(key, { ...lease, expired: old?.expired === true && sameLine });
  }
  for (const [key, old] of before) if (!after.has(key) && !old.expired) changes.push({ kind: 'lease.expired', lease: old });
  for (const lease of kept.values()) {
    if (lease.expired || lease.expires === null || lease.expires > now) continue;
    lease.expired = true;
    changes.push({ kind: 'lease.expired', lease });
  }
  return { changes, kept };
}

/** Whether expiry `a` is later than `b` (null: never). */
function later(a: number | null, b: number | null): boolean {
  return a === null ? b !== null : b !== null && a > b;
}
