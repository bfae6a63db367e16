import { cidrText, ipv4Text } from '../parsers/ipv4.ts';

/** dnsmasq's first address and size of a range when `dhcp` gives none (OpenWrt's), and its lease time. */
export const DHCP_DEFAULTS = { start: 100, limit: 150, lease: '12h' } as const;

/** What a range is worked out from: `dhcp.start` and `dhcp.limit` of a network, whole numbers when given. */
export interface DhcpOffsets {
  start?: number | undefined;
  limit?: number | undefined;
}

/**
 * The first and last address dnsmasq gives out, as numbers: from `start` addresses into the subnet,
 * `limit` of them, above `taken` (the host's and the chute's) and below the broadcast address.
 * Defaults that do not fit are cut to the subnet; values given that do not fit are refused. Serve
 * runs dnsmasq on this range, and the emulator's living network hands out its leases from it.
 *
 * @throws Error naming `dhcp.start` or `dhcp.limit`, or saying that no address is left.
 * @example
 * dhcpRange({ start: 10, limit: 20 }, parseCidr('10.128.0.0/24')!, [ipv4Number('10.128.0.1')!]) // { first: 176160778, last: 176160797 }: 10.128.0.10 to .29
 */
export function dhcpRange(
  dhcp: DhcpOffsets,
  subnet: { network: number; broadcast: number; prefix: number },
  taken: readonly number[],
): { first: number; last: number } {
  const lowest = Math.max(subnet.network, ...taken) + 1;
  const highest = subnet.broadcast - 1;
  const where = `${cidrText(subnet)} (offsets ${lowest - subnet.network} to ${highest - subnet.network}, after the host's and the chute's addresses and before the broadcast address)`;
  if (lowest > highest) throw new Error(`dhcp: ${cidrText(subnet)} has no address left to give out after the host's and the chute's`);
  let first: number;
  if (dhcp.start !== undefined) {
    first = subnet.network + dhcp.start;
    if (first < lowest || first > highest) throw new Error(`dhcp.start ${dhcp.start} is outside the addresses DHCP can give out in ${where}`);
  } else {
    first = subnet.network + DHCP_DEFAULTS.start;
    if (first < lowest || first > highest) first = lowest;
  }
  if (dhcp.limit === undefined) return { first, last: Math.min(first + DHCP_DEFAULTS.limit - 1, highest) };
  const last = first + dhcp.limit - 1;
  if (last > highest)
    throw new Error(`dhcp.limit ${dhcp.limit} runs past the subnet: from ${ipv4Text(first)}, at most ${highest - first + 1} addresses fit in ${where}`);
  return { first, last };
}
