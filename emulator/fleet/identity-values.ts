import { encodeSsid } from '../../functions/parsers/hostapd.ts';
import { SSID_MAX_BYTES } from '../../functions/networks/ssid-body.ts';
import { draw } from '../seeded.ts';
import { deviceId, type FleetMember } from './members.ts';

/**
 * The identity of one device of a fleet (docs/decisions/0055-a-fleet-of-emulated-routers.md): the
 * value it answers in place of each identity value its scenario recorded. Each is a function of the
 * device's index and seed alone, so the same fleet seed gives the same values in any process, and
 * each holds the index, so no two devices of a fleet share one.
 */

/** One identity value of a scenario, where a recorded text or document holds it. */
export type IdentityValue =
  /** A MAC address, by its place among the scenario's MACs; written in capitals where it was. */
  | { kind: 'mac'; slot: number; upper: boolean }
  /** A container id, by its place among the engine's: the 64 hex digits, or the 12 of the short form. */
  | { kind: 'container'; slot: number; short: boolean }
  /** A serial number or asset tag, a host name: the device's is the recorded one with its index. */
  | { kind: 'serial' | 'hostname'; recorded: string }
  /** A DMI `product_uuid`. */
  | { kind: 'uuid'; recorded: string }
  /** An SSID the scenario marks as the device's own; `encoded` as hostapd prints it (`encodeSsid`). */
  | { kind: 'ssid'; recorded: string; encoded: boolean };

/** The most devices whose identities a fleet tells apart: the index takes 30 bits of a MAC. */
export const MAX_IDENTITY_INDEX = 2 ** 30 - 1;

/** How many MACs of a scenario a device maps: the 16 bits of a MAC beside the index. */
export const MAC_SLOTS = 2 ** 16;

/** How many container ids of a scenario a device maps: the 18 bits of a short id beside the index. */
export const CONTAINER_SLOTS = 2 ** 18;

/** One device's identity: its pdid and the value it answers for each recorded one. */
export interface MemberIdentity {
  /** What the device is provisioned as (the `routerId` that GET /api/v1/config/pdid answers): its id in the fleet. */
  readonly pdid: string;
  /** The device's value for a recorded one. */
  value(recorded: IdentityValue): string;
}

/**
 * The identity of the device at `index` of a fleet, with its own seed (`fleetMember`). It keeps two
 * numbers besides them: what it needs is worked out on each call.
 *
 * @throws Error for an index beyond `MAX_IDENTITY_INDEX`.
 * @example
 * memberIdentity({ index: 42, seed: 7 }).value({ kind: 'hostname', recorded: 'OpenWrt' }); // 'OpenWrt-42'
 */
export function memberIdentity(member: Pick<FleetMember, 'index' | 'seed'>): MemberIdentity {
  const { index, seed } = member;
  if (!Number.isInteger(index) || index < 0 || index > MAX_IDENTITY_INDEX)
    throw new Error(`a fleet's identities end at index ${MAX_IDENTITY_INDEX}, not ${index}`);
  // A permutation of the slots for each device, so that its seed shows in every MAC and container id.
  const macMask = Math.floor(draw(seed, 'identity', 'mac') * MAC_SLOTS);
  const containerMask = Math.floor(draw(seed, 'identity', 'container') * CONTAINER_SLOTS);
  return {
    pdid: deviceId(index),
    value(recorded) {
      switch (recorded.kind) {
        case 'mac': {
          const mac = derivedMac(index, recorded.slot ^ macMask);
          return recorded.upper ? mac.toUpperCase() : mac;
        }
        case 'container': {
          const id = derivedContainerId(index, recorded.slot ^ containerMask, seed);
          return recorded.short ? id.slice(0, 12) : id;
        }
        case 'serial':
        case 'hostname':
          return `${recorded.recorded}-${index}`;
        case 'uuid':
          return derivedUuid(recorded.recorded, index, seed);
        case 'ssid': {
          const ssid = withIndex(recorded.recorded, index, SSID_MAX_BYTES);
          return recorded.encoded ? encodeSsid(ssid) : ssid;
        }
      }
    },
  };
}

/**
 * A locally administered unicast MAC (first byte `xxxxxx10`) whose other 46 bits are the index (30
 * bits, the first four bytes) and the slot (16 bits, the last two): the index in it in hexadecimal.
 *
 * @example
 * derivedMac(42, 3); // '02:00:00:2a:00:03'
 */
export function derivedMac(index: number, slot: number): string {
  const value = index * MAC_SLOTS + slot;
  const bytes = [(Math.floor(value / 2 ** 40) << 2) | 0x02];
  for (let shift = 32; shift >= 0; shift -= 8) bytes.push(Math.floor(value / 2 ** shift) % 256);
  return bytes.map((byte) => byte.toString(16).padStart(2, '0')).join(':');
}

/**
 * A container id as an engine makes one, 64 hexadecimal digits: the first 12 (the short id) a
 * one-to-one mix of the index and the slot, the rest drawn from the seed.
 */
function derivedContainerId(index: number, slot: number, seed: number): string {
  const digits = [
    mix48(BigInt(index) * BigInt(CONTAINER_SLOTS) + BigInt(slot))
      .toString(16)
      .padStart(12, '0'),
  ];
  for (let part = 0; part < 7; part++)
    digits.push(
      Math.floor(draw(seed, 'identity', 'container', slot, part) * 2 ** 32)
        .toString(16)
        .padStart(8, '0')
        .slice(0, part < 6 ? 8 : 4),
    );
  // Joined at once into one string of its 64 digits, not a chain of pieces: a device may keep it.
  return digits.join('');
}

const MASK_48 = (1n << 48n) - 1n;

/** A one-to-one map of 48-bit numbers (multiplications by odd numbers and xor-shifts), which makes consecutive ones look unrelated. */
function mix48(value: bigint): bigint {
  let x = (value * 0x9e3779b97f4bn) & MASK_48;
  x ^= x >> 24n;
  x = (x * 0xbf58476d1ce5n) & MASK_48;
  return x ^ (x >> 24n);
}

/** The recorded UUID with its last group made of the index (8 hexadecimal digits) and 4 drawn from the seed. */
function derivedUuid(recorded: string, index: number, seed: number): string {
  const tail =
    index.toString(16).padStart(8, '0') +
    Math.floor(draw(seed, 'identity', 'uuid') * 0x10000)
      .toString(16)
      .padStart(4, '0');
  const uuid = `${recorded.slice(0, 24)}${tail}`;
  return recorded === recorded.toUpperCase() ? uuid.toUpperCase() : uuid;
}

/** `<recorded>-<index>` within `maxBytes` of UTF-8: the recorded text cut, by whole characters, to make room. */
function withIndex(recorded: string, index: number, maxBytes: number): string {
  const suffix = `-${index}`;
  let bytes = suffix.length;
  let kept = '';
  for (const char of recorded) {
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes > maxBytes) break;
    kept += char;
  }
  return kept + suffix;
}
