/**
 * One lease of a dnsmasq lease file, fields verbatim as dnsmasq wrote them.
 *
 * - `expires`: when the lease ends, in seconds since the epoch; `0` for an infinite lease. dnsmasq
 *   built for boards without a real-time clock (HAVE_BROKEN_RTC) writes the lease *length* in
 *   seconds instead; it is passed on as written.
 * - `mac_addr`: the hardware address, `aa:bb:cc:dd:ee:ff` for Ethernet and Wi-Fi; dnsmasq prefixes
 *   other hardware types with their number (`20-…` for InfiniBand, `00-` when there is none). IPv6
 *   leases have none, and get no `mac_addr` field.
 * - `ip_addr`: the IPv4 or IPv6 address.
 * - `hostname`: the name the client sent, or `*` when it sent none (kept as dnsmasq wrote it, as
 *   ParaDrop does: the field is always a string).
 * - `client_id`: the DHCP client identifier (IPv4) or the client's DUID (IPv6), colon-separated hex;
 *   absent when dnsmasq wrote `*`.
 */
export interface LeaseRecord {
  expires: string;
  mac_addr?: string;
  ip_addr: string;
  hostname: string;
  client_id?: string;
}

/**
 * Parses a dnsmasq lease file (`dhcp-leasefile`, e.g. /tmp/dhcp.leases on OpenWrt), in the format
 * dnsmasq's lease.c writes:
 * - an IPv4 lease is `<expires> <mac> <ip> <hostname|*> <client-id|*>`;
 * - once there are IPv6 leases, a `duid <server DUID>` line follows the IPv4 ones (it is not a lease),
 *   then each IPv6 lease as `<expires> <iaid> <ipv6> <hostname|*> <client DUID|*>` (the iaid is the
 *   client's identity association, `T`-prefixed for a temporary address, not a MAC).
 *
 * A line is IPv6 after the `duid` line or when its address has a colon. Lines that are not a lease
 * (blank, fewer than four fields, an expiry that is not a number) are skipped.
 *
 * @example
 * parseLeases('1633703346 00:1c:42:0f:b1:c7 192.168.222.244 laptop 01:00:1c:42:0f:b1:c7\n')
 * // [{ expires: '1633703346', mac_addr: '00:1c:42:0f:b1:c7', ip_addr: '192.168.222.244', hostname: 'laptop', client_id: '01:00:1c:42:0f:b1:c7' }]
 */
export function parseLeases(text: string): LeaseRecord[] {
  const leases: LeaseRecord[] = [];
  let ipv6 = false;
  for (const line of text.split('\n')) {
    // dnsmasq separates fields with one space; a file edited, or copied through Windows, may have
    // tabs, runs of blanks or `\r`.
    const [expires, mac, ip, hostname, clientId] = line.trim().split(/[ \t\r]+/, 5) as [string, ...(string | undefined)[]];
    if (expires === 'duid') ipv6 = true;
    if (hostname === undefined || !DIGITS.test(expires)) continue;
    leases.push(lease(expires, ipv6 || ip!.includes(':') ? undefined : mac, ip!, hostname, clientId === '*' ? undefined : clientId));
  }
  return leases;
}

/** One or more decimal digits: an expiry. */
const DIGITS = /^\d+$/;

/** The record of one lease, its fields in the order dnsmasq writes them; no `mac_addr` or `client_id` when undefined. */
function lease(expires: string, mac: string | undefined, ip: string, hostname: string, clientId: string | undefined): LeaseRecord {
  if (mac === undefined) return clientId === undefined ? { expires, ip_addr: ip, hostname } : { expires, ip_addr: ip, hostname, client_id: clientId };
  return clientId === undefined ? { expires, mac_addr: mac, ip_addr: ip, hostname } : { expires, mac_addr: mac, ip_addr: ip, hostname, client_id: clientId };
}
