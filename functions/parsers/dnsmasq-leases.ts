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
  // The first space at or after the field being read: each space of the text is searched for once,
  // and the search past a line's last field finds the next line's first space.
  let space = -1;
  let ipv6 = false;
  for (let lineStart = 0, lineEnd = 0; lineStart < text.length; lineStart = lineEnd + 1) {
    lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    // The fields one space apart, as dnsmasq writes them, end at `a`, `b`, `c`, `d` and `e`; a line
    // that ends before its fourth field is no lease. A line with a leading or double space among its
    // first five fields is read by `readLineAtBlanks`, as is every line of a file with tabs or `\r`.
    oneSpaceApart: {
      if (!spacesOnly) break oneSpaceApart;
      if (space < lineStart) space = nextSpace(text, lineStart);
      const a = Math.min(space, lineEnd);
      if (a === lineStart) break oneSpaceApart;
      if (a - lineStart === 4 && text.startsWith('duid', lineStart)) ipv6 = true;
      if (a + 1 >= lineEnd) continue;
      const b = Math.min((space = nextSpace(text, a + 1)), lineEnd);
      if (b === a + 1) break oneSpaceApart;
      if (b + 1 >= lineEnd) continue;
      const c = Math.min((space = nextSpace(text, b + 1)), lineEnd);
      if (c === b + 1) break oneSpaceApart;
      if (c + 1 >= lineEnd) continue;
      const d = Math.min((space = nextSpace(text, c + 1)), lineEnd);
      if (d === c + 1) break oneSpaceApart;
      const e = d + 1 < lineEnd ? Math.min((space = nextSpace(text, d + 1)), lineEnd) : d;
      if (e === d + 1) break oneSpaceApart;
      if (!isDigitsAt(text, lineStart, a)) continue;
      const expires = text.slice(lineStart, a);
      const ip = text.slice(b + 1, c);
      const hostname = isStar(text, c + 1, d) ? '*' : text.slice(c + 1, d);
      const clientId = e === d || isStar(text, d + 1, e) ? undefined : text.slice(d + 1, e);
      const mac = ipv6 || ip.includes(':') ? undefined : text.slice(a + 1, b);
      leases.push(lease(expires, mac, ip, hostname, clientId));
      continue;
    }
    ipv6 = readLineAtBlanks(text, lineStart, lineEnd, ipv6, leases);
  }
  return leases;
}

/**
 * Reads the line `text[from, to)` with fields separated by any run of spaces, tabs or `\r`: a lease
 * goes into `leases`. Answers whether the leases that follow are IPv6 ones (`ipv6`, or true after
 * the `duid` line).
 */
function readLineAtBlanks(text: string, from: number, to: number, ipv6: boolean, leases: LeaseRecord[]): boolean {
  const line = text.slice(from, to).trim();
  if (line === '') return ipv6;
  const [expires, mac, ip, hostname, clientId] = line.split(/[ \t\r]+/, 5) as [string, ...(string | undefined)[]];
  if (expires === 'duid') ipv6 = true;
  if (hostname === undefined || !isDigitsAt(expires, 0, expires.length)) return ipv6;
  leases.push(lease(expires, ipv6 || ip!.includes(':') ? undefined : mac, ip!, hostname, clientId === '*' ? undefined : clientId));
  return ipv6;
}

/** The record of one lease, its fields in the order dnsmasq writes them; no `mac_addr` or `client_id` when undefined. */
function lease(expires: string, mac: string | undefined, ip: string, hostname: string, clientId: string | undefined): LeaseRecord {
  // One object literal per shape, so that every lease of a shape shares one hidden class.
  if (mac === undefined) return clientId === undefined ? { expires, ip_addr: ip, hostname } : { expires, ip_addr: ip, hostname, client_id: clientId };
  return clientId === undefined ? { expires, mac_addr: mac, ip_addr: ip, hostname } : { expires, mac_addr: mac, ip_addr: ip, hostname, client_id: clientId };
}

/** The position of the first space at or after `from`, or the text's length. */
function nextSpace(text: string, from: number): number {
  const at = text.indexOf(' ', from);
  return at < 0 ? text.length : at;
}

/** Whether `text[from, to)` is `*`, dnsmasq's mark of an absent hostname or client id. */
function isStar(text: string, from: number, to: number): boolean {
  return to === from + 1 && text.charCodeAt(from) === 42;
}

/** Whether `text[from, to)` is one or more decimal digits. */
function isDigitsAt(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return to > from;
}
