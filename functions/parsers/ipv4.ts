/*
 * IPv4 addresses, netmasks and networks as 32-bit numbers: what the host configuration's LAN and
 * WAN, the kernel's routes and the chute networks' reservations are compared in.
 */

/**
 * A dotted-quad IPv4 address as a 32-bit number: four decimal parts 0–255 without leading zeros;
 * undefined for anything else.
 *
 * @example
 * ipv4Number('192.168.1.1') // 3232235777
 * ipv4Number('192.168.01.1') // undefined
 */
export function ipv4Number(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^(?:0|[1-9][0-9]{0,2})$/.test(part) && Number(part) <= 255)) return undefined;
  return parts.reduce((sum, part) => sum * 256 + Number(part), 0);
}

/** The dotted quad of a 32-bit number. */
export function ipv4Text(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/**
 * The prefix length of a netmask (contiguous ones, then zeros), or undefined when it is not one.
 *
 * @example
 * netmaskPrefix('255.255.255.0') // 24
 * netmaskPrefix('255.0.255.0')   // undefined
 */
export function netmaskPrefix(netmask: string): number | undefined {
  const value = ipv4Number(netmask);
  if (value === undefined) return undefined;
  for (let prefix = 0; prefix <= 32; prefix++) if (prefixMask(prefix) === value) return prefix;
  return undefined;
}

/** The netmask of a prefix length as a number: 24 → 0xffffff00. */
export function prefixMask(prefix: number): number {
  return prefix === 0 ? 0 : 2 ** 32 - 2 ** (32 - prefix);
}

/**
 * The network an address with a netmask is in: `{ network, broadcast, prefix }` as numbers, or
 * undefined when either is not valid.
 *
 * @example
 * ipv4Subnet('192.168.1.1', '255.255.255.0') // { network: 3232235776, broadcast: 3232236031, prefix: 24 }
 */
export function ipv4Subnet(address: string, netmask: string): { network: number; broadcast: number; prefix: number } | undefined {
  const value = ipv4Number(address);
  const prefix = netmaskPrefix(netmask);
  if (value === undefined || prefix === undefined) return undefined;
  const size = 2 ** (32 - prefix);
  const network = value - (value % size);
  return { network, broadcast: network + size - 1, prefix };
}

/** An IPv4 network: its first and last address as numbers, and its prefix length. */
export interface Ipv4Network {
  network: number;
  broadcast: number;
  prefix: number;
}

/**
 * An IPv4 network in slash notation, or undefined when it is not one. Host bits are allowed and
 * dropped: `10.0.0.5/24` is `10.0.0.0/24`.
 *
 * @example
 * parseCidr('10.128.0.0/9') // { network: 176160768, broadcast: 184549375, prefix: 9 }
 * parseCidr('10.128.0.0')   // undefined
 */
export function parseCidr(text: string): Ipv4Network | undefined {
  const [address, length, extra] = text.split('/');
  if (address === undefined || length === undefined || extra !== undefined || !/^(?:[0-9]|[12][0-9]|3[0-2])$/.test(length)) return undefined;
  const value = ipv4Number(address);
  if (value === undefined) return undefined;
  const prefix = Number(length);
  const size = 2 ** (32 - prefix);
  const network = value - (value % size);
  return { network, broadcast: network + size - 1, prefix };
}

/** A network in slash notation: `10.128.3.0/24`. */
export function cidrText(net: Ipv4Network): string {
  return `${ipv4Text(net.network)}/${net.prefix}`;
}

/** Whether two networks share an address. */
export function overlaps(a: Ipv4Network, b: Ipv4Network): boolean {
  return a.network <= b.broadcast && b.network <= a.broadcast;
}
