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
  // dnsmasq separates fields with one space; a file with tabs or `\r` (edited, or copied through
  // Windows) is split at any run of blanks.
  const spacesOnly = !text.includes('\t') && !text.includes('\r');
  const fields: string[] = [];
  let ipv6 = false;
  for (let lineStart = 0, lineEnd = 0; lineStart < text.length; lineStart = lineEnd + 1) {
    lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const count = spacesOnly ? fieldsAtSpaces(text, lineStart, lineEnd, fields) : fieldsAtBlanks(text, lineStart, lineEnd, fields);
    const expires = fields[0]!;
    if (count > 0 && expires === 'duid') ipv6 = true;
    if (count < 4 || !isDigits(expires)) continue;
    const ip = fields[2]!;
    const hostname = fields[3]!;
    const lease: LeaseRecord =
      ipv6 || ip.includes(':') ? { expires, ip_addr: ip, hostname } : { expires, mac_addr: fields[1]!, ip_addr: ip, hostname };
    if (count > 4 && fields[4] !== '*') lease.client_id = fields[4]!;
    leases.push(lease);
  }
  return leases;
}

/**
 * Puts the first five fields of `text[from, to)` in `out` and answers how many there are. The fast
 * path: dnsmasq writes fields one space apart, and `indexOf` finds each space; a line with a double
 * or leading space is handed to `fieldsAtBlanks`.
 */
function fieldsAtSpaces(text: string, from: number, to: number, out: string[]): number {
  let count = 0;
  for (let start = from; start < to && count < 5; count++) {
    let end = text.indexOf(' ', start);
    if (end < 0 || end > to) end = to;
    if (end === start) return fieldsAtBlanks(text, from, to, out);
    out[count] = text.slice(start, end);
    start = end + 1;
  }
  return count;
}

/** Like `fieldsAtSpaces`, for fields separated by any run of spaces, tabs or `\r`. */
function fieldsAtBlanks(text: string, from: number, to: number, out: string[]): number {
  const line = text.slice(from, to).trim();
  if (line === '') return 0;
  const fields = line.split(/[ \t\r]+/, 5);
  for (let i = 0; i < fields.length; i++) out[i] = fields[i]!;
  return fields.length;
}

function isDigits(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return text.length > 0;
}
