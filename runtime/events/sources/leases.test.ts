import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { networkRunDir, type DeviceEventBody } from '../../../functions/core/device/index.ts';
import { writeChute } from '../../../test/support/chute-state.ts';
import { useTempDir } from '../../../test/support/temp-dir.ts';
import { chuteStore, JSON_FORMAT } from '../../chutes/store.ts';
import { hostNetworks, networkTools } from '../../device/host-networks.ts';
import { followLeases, leaseChanges, leasesOf, MAX_LEASES, type TrackedLease } from './leases.ts';
import type { EventSource } from './source.ts';

const temp = useTempDir('chutebox-lease-events-');
const PHONE = { mac: '5c:f7:e6:1c:36:f7', ip: '10.128.0.23', hostname: 'phone' };
const NOW = 1_700_000_000_000;
const tracked = (expires: number | null, expired = false): TrackedLease => ({ ...PHONE, expires, expired });
const kinds = (changes: { kind: string }[]) => changes.map((change) => change.kind);

describe('leasesOf: the leases of a lease file that events are about', () => {
  it('keeps the IPv4 leases by MAC and IP, a hostname * as null, an expiry 0 as never, and leaves IPv6 leases out', () => {
    const text = [
      '1700003600 5C:F7:E6:1C:36:F7 10.128.0.23 phone 01:5c:f7:e6:1c:36:f7',
      '0 02:00:00:00:00:02 10.128.0.24 * *',
      'duid 00:01:00:01:2c:8b:95:0e:52:54:00:12:34:56',
      '1700003600 1234567 fd00::23 phone6 00:01:00:01',
    ].join('\n');
    expect([...leasesOf(text)]).toEqual([
      ['5c:f7:e6:1c:36:f7 10.128.0.23', { ...PHONE, expires: 1_700_003_600_000, expired: false }],
      ['02:00:00:00:00:02 10.128.0.24', { mac: '02:00:00:00:00:02', ip: '10.128.0.24', hostname: null, expires: null, expired: false }],
    ]);
  });

  it(`keeps at most ${MAX_LEASES} leases of one file`, () => {
    const lines = Array.from(
      { length: MAX_LEASES + 5 },
      (_, i) => `1700003600 02:00:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')} 10.0.${i >> 8}.${i & 255} * *`,
    );
    expect(leasesOf(lines.join('\n')).size).toBe(MAX_LEASES);
  });
});

describe('leaseChanges: what changed between two reads of a lease file', () => {
  const key = `${PHONE.mac} ${PHONE.ip}`;
  const read = (...leases: TrackedLease[]) => new Map(leases.map((lease) => [`${lease.mac} ${lease.ip}`, lease]));

  it('a new lease is added, a later expiry renewed, the same expiry nothing, a lease gone from the file expired', () => {
    expect(kinds(leaseChanges(read(), read(tracked(NOW + 3600_000)), NOW).changes)).toEqual(['lease.added']);
    expect(leaseChanges(read(tracked(NOW + 3600_000)), read(tracked(NOW + 3700_000)), NOW).changes).toEqual([
      { kind: 'lease.renewed', lease: tracked(NOW + 3700_000) },
    ]);
    expect(kinds(leaseChanges(read(tracked(NOW + 3600_000)), read(tracked(null)), NOW).changes)).toEqual(['lease.renewed']);
    expect(kinds(leaseChanges(read(tracked(NOW + 3600_000)), read(tracked(NOW + 3600_000)), NOW).changes)).toEqual([]);
    expect(leaseChanges(read(tracked(NOW + 3600_000)), read(), NOW)).toEqual({
      changes: [{ kind: 'lease.expired', lease: tracked(NOW + 3600_000) }],
      kept: new Map(),
    });
  });

  it('a lease whose expiry passed is expired once, though still in the file; given again later, it is added', () => {
    const ran = leaseChanges(read(tracked(NOW - 1)), read(tracked(NOW - 1)), NOW);
    expect(kinds(ran.changes)).toEqual(['lease.expired']);
    expect(ran.kept.get(key)).toEqual(tracked(NOW - 1, true));
    expect(leaseChanges(ran.kept, read(tracked(NOW - 1)), NOW + 1000).changes).toEqual([]);
    expect(leaseChanges(ran.kept, read(), NOW + 1000).changes).toEqual([]);
    expect(kinds(leaseChanges(ran.kept, read(tracked(NOW + 3600_000)), NOW + 1000).changes)).toEqual(['lease.added']);
  });
});

describe('followLeases: the lease files of the chute networks, watched', () => {
  let source: EventSource | undefined;
  afterEach(async () => {
    await source?.stop();
    source = undefined;
  });

  /**
   * A state dir with chute `lab` whose network `wifi` has its lease file in the run folder (holding
   * `before`; no lease folder at all with `null`), and the source on it.
   */
  async function watched(name: string, before: string | null = '') {
    const stateDir = await temp.folder(name);
    const leaseDir = path.join(networkRunDir(stateDir), 'dnsmasq');
    const leaseFile = path.join(leaseDir, 'lab-wifi.leases');
    await writeChute(stateDir, 'lab', { wifi: { type: 'wifi', intfName: 'wlan0', dhcp: {} } }, { wifi: { hostInterface: 'vwlan1', leaseFile } });
    if (before !== null) await mkdir(leaseDir, { recursive: true });
    if (before) await writeFile(leaseFile, before);
    const events: DeviceEventBody[] = [];
    const chutes = chuteStore(path.join(stateDir, 'chutes'), JSON_FORMAT);
    source = followLeases({ chutes, network: hostNetworks(networkTools()).network, leaseDir }, (body) => events.push(body));
    await source.ready;
    return { events, leaseDir, leaseFile };
  }
  const seconds = (ms: number) => Math.floor(ms / 1000);

  it('tells nothing of the leases there at start; a lease written later is lease.added with its network, IP, MAC, name and expiry', async () => {
    const expires = seconds(Date.now()) + 3600;
    const { events, leaseFile } = await watched('added', `${expires} 02:00:00:00:00:09 10.128.0.109 tablet *\n`);
    await writeFile(leaseFile, `${expires} 02:00:00:00:00:09 10.128.0.109 tablet *\n${expires} ${PHONE.mac} ${PHONE.ip} phone *\n`);
    await expect
      .poll(() => events)
      .toEqual([{ kind: 'lease.added', chute: 'lab', network: 'wifi', ...PHONE, expires: new Date(expires * 1000).toISOString() }]);
  });

  it('tells lease.expired when a lease runs out, without the file changing', async () => {
    const expires = seconds(Date.now()) + 2;
    const { events, leaseFile } = await watched('runs-out');
    await writeFile(leaseFile, `${expires} ${PHONE.mac} ${PHONE.ip} phone *\n`);
    await expect.poll(() => events.map((event) => event.kind)).toEqual(['lease.added']);
    await expect.poll(() => events.map((event) => event.kind), { timeout: 5000 }).toEqual(['lease.added', 'lease.expired']);
    expect(Date.now()).toBeGreaterThanOrEqual(expires * 1000);
  });

  it('tells the leases of a network whose lease file goes (a chute deleted) as expired', async () => {
    const expires = seconds(Date.now()) + 3600;
    const { events, leaseFile } = await watched('deleted', `${expires} ${PHONE.mac} ${PHONE.ip} phone *\n`);
    await rm(leaseFile);
    await expect
      .poll(() => events)
      .toEqual([{ kind: 'lease.expired', chute: 'lab', network: 'wifi', ...PHONE, expires: new Date(expires * 1000).toISOString() }]);
  });

  it('follows a lease folder made after it started (a fresh device) and one removed and made again (a factory reset)', async () => {
    const { events, leaseDir, leaseFile } = await watched('fresh', null);
    const expires = seconds(Date.now()) + 3600;
    await mkdir(leaseDir, { recursive: true });
    await writeFile(leaseFile, `${expires} ${PHONE.mac} ${PHONE.ip} phone *\n`);
    await expect.poll(() => events.map((event) => event.kind), { timeout: 10_000 }).toEqual(['lease.added']);
    await rm(leaseDir, { recursive: true });
    await expect.poll(() => events.map((event) => event.kind), { timeout: 10_000 }).toEqual(['lease.added', 'lease.expired']);
    await mkdir(leaseDir);
    await writeFile(leaseFile, `${expires} ${PHONE.mac} ${PHONE.ip} phone *\n`);
    await expect.poll(() => events.map((event) => event.kind), { timeout: 10_000 }).toEqual(['lease.added', 'lease.expired', 'lease.added']);
  });
});
