import { describe, expect, it } from 'vitest';
import { derivedMac, memberIdentity, type IdentityValue, type MemberIdentity } from './identity-values.ts';
import { fleetMember, type FleetSpec } from './members.ts';

const FLEET: FleetSpec = { size: 100_000, seed: 1, scenarios: [{ scenario: 'default', share: 1 }] };

/** One recorded value of each kind, as a scenario holds them (the SSID one byte short of the limit). */
const RECORDED: Record<string, IdentityValue> = {
  mac: { kind: 'mac', slot: 9, upper: false },
  'container id': { kind: 'container', slot: 1, short: false },
  'short container id': { kind: 'container', slot: 1, short: true },
  serial: { kind: 'serial', recorded: '1419826' },
  uuid: { kind: 'uuid', recorded: '03000200-0400-0500-0006-000700080009' },
  'host name': { kind: 'hostname', recorded: 'OpenWrt' },
  SSID: { kind: 'ssid', recorded: 'Café Guest with a long name 123', encoded: false },
};

const identities = (spec: FleetSpec): MemberIdentity[] => Array.from({ length: spec.size }, (_, index) => memberIdentity(fleetMember(spec, index)));

describe("the identity of a fleet's devices", () => {
  const fleet = identities(FLEET);

  it.each(Object.entries(RECORDED))('gives each of 100,000 devices a %s of its own', (_, recorded) => {
    expect(new Set(fleet.map((identity) => identity.value(recorded))).size).toBe(FLEET.size);
  });

  it('gives each of 100,000 devices a pdid of its own', () => {
    expect(new Set(fleet.map((identity) => identity.pdid)).size).toBe(FLEET.size);
  });

  it('gives a device a different MAC and container id for each recorded one', () => {
    const device = fleet[99_999]!;
    const slots = Array.from({ length: 1000 }, (_, slot) => slot);
    expect(new Set(slots.map((slot) => device.value({ kind: 'mac', slot, upper: false }))).size).toBe(slots.length);
    expect(new Set(slots.map((slot) => device.value({ kind: 'container', slot, short: true }))).size).toBe(slots.length);
  });

  it('makes every MAC a locally administered unicast one, in the case it was recorded in', () => {
    for (const identity of [fleet[0]!, fleet[4242]!, memberIdentity({ index: 2 ** 30 - 1, seed: 3 })]) {
      for (const slot of [0, 1, 2 ** 16 - 1]) {
        const mac = identity.value({ kind: 'mac', slot, upper: false });
        expect(mac).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/);
        expect(Number.parseInt(mac.slice(0, 2), 16) & 0b11).toBe(0b10);
        expect(identity.value({ kind: 'mac', slot, upper: true })).toBe(mac.toUpperCase());
      }
    }
  });

  it('shows the index in a MAC, and the recorded value with the index in a serial, host name and SSID', () => {
    expect(derivedMac(42, 3)).toBe('02:00:00:2a:00:03');
    const device = memberIdentity({ index: 42, seed: 7 });
    expect(device.value({ kind: 'serial', recorded: '1419826' })).toBe('1419826-42');
    expect(device.value({ kind: 'hostname', recorded: 'OpenWrt' })).toBe('OpenWrt-42');
    expect(device.value({ kind: 'ssid', recorded: 'Café Guest', encoded: true })).toBe('Caf\\xc3\\xa9 Guest-42');
    expect(device.value({ kind: 'uuid', recorded: '4C4C4544-0032-3510-8048-B4C04F565931' })).toMatch(/^4C4C4544-0032-3510-8048-0000002A[0-9A-F]{4}$/);
    expect(device.pdid).toBe('router-42');
  });

  it('cuts a recorded SSID, by whole characters, to keep the index within 32 bytes', () => {
    const ssid = memberIdentity({ index: 123_456, seed: 1 }).value({ kind: 'ssid', recorded: 'ééééééééééééééééé', encoded: false });
    expect(ssid).toBe('éééééééééééé-123456');
    expect(new TextEncoder().encode(ssid).length).toBeLessThanOrEqual(32);
  });

  it('is the same for the same fleet seed, and another for another seed', () => {
    const again = identities({ ...FLEET, size: 100 });
    const other = identities({ ...FLEET, size: 100, seed: 2 });
    for (const recorded of Object.values(RECORDED)) {
      expect(again.map((identity) => identity.value(recorded))).toEqual(fleet.slice(0, 100).map((identity) => identity.value(recorded)));
    }
    expect(other.map((identity) => identity.value(RECORDED['container id']!))).not.toEqual(again.map((identity) => identity.value(RECORDED['container id']!)));
  });

  it('refuses an index beyond what its MACs can hold', () => {
    expect(() => memberIdentity({ index: 2 ** 30, seed: 1 })).toThrow(/identities end at index 1073741823/);
  });
});
