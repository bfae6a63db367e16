import { fields } from './numbers.ts';
import type { Ipv4Network } from './ipv4.ts';

/** One IPv4 route of the kernel's main table: the network it reaches, on which interface, and how. */
export interface KernelRoute {
  interface: string;
  /** The destination network; `0.0.0.0/0` for a default route. */
  destination: Ipv4Network;
  /** The next hop as a number; 0 for a network on the link itself. */
  gateway: number;
  /** Whether the route is up (`RTF_UP`). */
  up: boolean;
}

/** A column of /proc/net/route: hex digits. */
const HEX = /^[0-9A-Fa-f]{1,8}$/;

/** `RTF_UP` of the `Flags` column (hex, in the usual byte order). */
const RTF_UP = 0x1;

/**
 * Parses /proc/net/route: a header line, then per route the interface and ten columns, the addresses
 * as 8 hex digits in the kernel's (little-endian) byte order: `0002A8C0` is 192.168.2.0. The network
 * is the destination with the mask's prefix; a mask whose ones are not contiguous (never written by
 * the kernel) and lines that do not fit are skipped.
 *
 * @example
 * parseRoutes('Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\neth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n')
 * // [{ interface: 'eth0', destination: { network: 3221225984, broadcast: 3221226239, prefix: 24 }, gateway: 0, up: true }]
 */
export function parseRoutes(text: string): KernelRoute[] {
  const routes: KernelRoute[] = [];
  for (const line of text.split('\n')) {
    const [name, destination, gateway, flags, , , , mask] = fields(line);
    if (name === undefined || name === 'Iface' || mask === undefined) continue;
    const [net, hop, netmask] = [destination, gateway, mask].map((hex) => (HEX.test(hex!) ? hostOrder(hex!) : undefined));
    if (net === undefined || hop === undefined || netmask === undefined || !HEX.test(flags!)) continue;
    const prefix = 32 - Math.log2(2 ** 32 - netmask);
    if (!Number.isInteger(prefix)) continue;
    const network = net - (net % 2 ** (32 - prefix));
    routes.push({
      interface: name,
      destination: { network, broadcast: network + 2 ** (32 - prefix) - 1, prefix },
      gateway: hop,
      up: (Number.parseInt(flags!, 16) & RTF_UP) !== 0,
    });
  }
  return routes;
}

/** An address of /proc/net/route as a number: its 4 bytes reversed (`0102A8C0` → 192.168.2.1). */
function hostOrder(hex: string): number {
  const bytes = hex.padStart(8, '0').match(/../g)!;
  return Number.parseInt(bytes.reverse().join(''), 16);
}
