import { isIpAddress, leaseSeconds, type AccessPointEntry, type VlanEntry } from '../../functions/chutes/chute-config.ts';
import type { NetworkReservation } from '../../functions/chutes/network-reservations.ts';
import { radioBand, type HT_MODES, type HW_MODES } from '../../functions/config/host-config.ts';
import { hexBytes } from '../../functions/core/hex.ts';
import { ipv4Number, ipv4Text, parseCidr, prefixMask } from '../../functions/parsers/ipv4.ts';
import { DHCP_DEFAULTS, dhcpRange } from '../../functions/chutes/dhcp-range.ts';

/*
 * The configuration of the two daemons behind a chute network, worked out from its `net` entry and
 * its reservation (functions/chutes/network-reservations.ts), without I/O: hostapd's configuration
 * file for an access point, and dnsmasq's argument array for a network with `dhcp`. Every value is
 * checked again here (the schemas refuse most bad ones already): nothing can add a line to
 * hostapd.conf, and a value hostapd or dnsmasq would refuse at start is refused here, naming the
 * field. Decisions:
 *
 * - The wired stand-in (tests and labs: `driver=wired`, 802.1X with EAP-MD5) needs `key`: it is the
 *   password of the EAP user `chute` (EAP_IDENTITY), which a station such as `wpa_supplicant -D wired`
 *   logs in with. Options about the radio (`hidden`, `isolate`, `maxassoc`) are left out there;
 *   `nasid` and RADIUS accounting are kept.
 * - A radio's `hw_mode` comes from its channel's band, or for `auto` from its mode (11n and 11ax alone
 *   say no band: 2.4 GHz). 11a or 11ac on a 2.4 GHz channel, or 11b or 11g on a 5 GHz one, is refused.
 *   `ht_capab` is only the secondary channel of a 40 MHz or wider `htmode` (`[HT40+]`/`[HT40-]`: as
 *   given, or for an unsigned width by OpenWrt's rule); VHT80 and wider run at 40 MHz, since
 *   `vht_oper_chwidth` is not written.
 * - dnsmasq serves DHCP only (`--port=0`, no DNS server on the gateway), so without `dns` it
 *   advertises no DNS server rather than a gateway that would not answer; IPv6 addresses of `dns`
 *   are left out (DHCPv4 carries IPv4 DNS servers only).
 * - dnsmasq drops to `nobody` after start (its default): it opens the lease file as root first and
 *   writes it through that descriptor, which was tried in a 0700 folder, so no `--user=root`.
 *   Without a pid file it is told to write none (`--pid-file` alone), not its default
 *   /run/dnsmasq.pid, which every network's dnsmasq (and the system's) would share. It logs to stderr
 *   (`--log-facility=-`), for its supervisor to keep.
 * - An address is one the chute configuration takes (`isIpAddress`). Nothing here needs Node: the
 *   emulator builds the same files for the networks of the chutes installed on it, in a browser too.
 */

/** How hostapd serves the access point: on a radio (nl80211), or — for tests and labs — on a wired stand-in interface with 802.1X. */
export type AccessPointRadio =
  | {
      kind: 'radio';
      /** The radio's 802.11 mode (the host configuration's `hwmode`); none: 802.11a/b/g by the channel's band. */
      hwmode?: (typeof HW_MODES)[number] | undefined;
      channel: number | 'auto';
      htmode?: (typeof HT_MODES)[number] | undefined;
      /** ISO 3166-1 alpha-2 country code, e.g. `DE`: sets the regulatory domain (`country_code`, `ieee80211d`). */
      country?: string | undefined;
    }
  | { kind: 'wired' };

/** The EAP identity of the wired stand-in's one user, whose password is the network's key. */
export const EAP_IDENTITY = 'chute';

/** The longest lease dnsmasq is given in seconds (it reads the number as a C int); longer is `infinite`. */
const MAX_LEASE_SECONDS = 2 ** 31 - 1;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ENCODER = new TextEncoder();
const RAW_WPA_KEY = /^[0-9a-fA-F]{64}$/;
/** Interface names the daemons are given: what Linux allows, less what either reads as a separator. */
const INTERFACE_NAME = /^[A-Za-z0-9_.-]{1,15}$/;
/** hostapd's limit of `max_num_sta`. */
const MAX_STATIONS = 2007;

/** One `key=value` line of hostapd.conf, and the field its value comes from (for the error). */
type ConfLine = readonly [key: string, value: string | number, field: string];

/**
 * hostapd.conf for an access point: `key=value` lines in a fixed order, ending with a newline. On a
 * radio: nl80211, the SSID, band, channel (`auto`: 0, hostapd's ACS) and 802.11n/ac/ax, WPA2-PSK
 * with `key` (else open), and the options. On the wired stand-in: 802.1X with hostapd's EAP server
 * and `eapUserFile` (see `eapUserFile`). The control socket is `reservation.hostapdControl`, whose
 * name must be the host interface's (hostapd names it so, inside `ctrl_interface`).
 *
 * @throws Error naming the field: a value with a line break or NUL, a control socket not named after
 *   the interface, a radio without `ssid`, a mode that does not fit the channel, a wired stand-in
 *   without `key` or `eapUserFile`, an accounting option without `options.acct_server`.
 * @example
 * hostapdConfig({ type: 'wifi', intfName: 'wlan0', ssid: 'Free', key: 'password1' }, reservation, { kind: 'radio', hwmode: '11g', channel: 6 })
 * // 'interface=vwlan5d1e\ndriver=nl80211\nctrl_interface=/var/lib/chutebox/networks/hostapd\nctrl_interface_group=0\nssid=Free\nhw_mode=g\nchannel=6\nwpa=2\n…'
 */
export function hostapdConfig(entry: AccessPointEntry, reservation: NetworkReservation, radio: AccessPointRadio, eapUserFile?: string): string {
  const iface = interfaceName(reservation);
  const lines: ConfLine[] = [
    ['interface', iface, 'reservation.hostInterface'],
    ['driver', radio.kind === 'wired' ? 'wired' : 'nl80211', 'radio'],
    ['ctrl_interface', controlDirectory(reservation), 'reservation.hostapdControl'],
    ['ctrl_interface_group', 0, 'ctrl_interface_group'],
  ];
  if (entry.ssid !== undefined) lines.push(...ssidLines(entry.ssid));
  else if (radio.kind === 'radio') throw new Error('ssid is required: an access point on a radio broadcasts one');
  if (radio.kind === 'radio') {
    lines.push(...radioLines(radio));
    const options = entry.options ?? {};
    if (options.hidden === true) lines.push(['ignore_broadcast_ssid', 1, 'options.hidden']);
    if (options.isolate === true) lines.push(['ap_isolate', 1, 'options.isolate']);
    if (options.maxassoc !== undefined) lines.push(['max_num_sta', integer(options.maxassoc, 'options.maxassoc', 1, MAX_STATIONS), 'options.maxassoc']);
    if (entry.key !== undefined) lines.push(...wpaLines(entry.key));
  } else {
    if (entry.key === undefined) throw new Error(`key is required on the wired stand-in: it is the EAP-MD5 password of its user "${EAP_IDENTITY}"`);
    if (eapUserFile === undefined || eapUserFile === '') throw new Error('eapUserFile is required on the wired stand-in: hostapd reads its EAP users from it');
    lines.push(['ieee8021x', 1, 'radio'], ['eap_server', 1, 'radio'], ['eap_user_file', eapUserFile, 'eapUserFile']);
  }
  lines.push(...radiusLines(entry.options ?? {}));
  return `${lines.map(([key, value, field]) => `${key}=${lineValue(value, field)}`).join('\n')}\n`;
}

/**
 * The EAP user file of the wired stand-in: one line `"chute" MD5 "<key>"`, the station authenticating
 * as `chute` with the network's key as its password. hostapd reads a quoted password up to the next
 * `"` (there is no escape), so a key that holds `"` is written in hostapd's other form, hex digits
 * without quotes.
 *
 * @throws Error when the entry has no `key`, or one with a line break or NUL.
 * @example
 * eapUserFile({ type: 'wifi', intfName: 'wlan0', key: 'password1' }) // '"chute" MD5 "password1"\n'
 * eapUserFile({ type: 'wifi', intfName: 'wlan0', key: 'say "hi"!' }) // '"chute" MD5 736179202268692221\n'
 */
export function eapUserFile(entry: AccessPointEntry): string {
  if (entry.key === undefined) throw new Error(`key is required on the wired stand-in: it is the EAP-MD5 password of its user "${EAP_IDENTITY}"`);
  const key = lineValue(entry.key, 'key');
  const password = key.includes('"') ? hexBytes(ENCODER.encode(key)) : `"${key}"`;
  return `"${EAP_IDENTITY}" MD5 ${password}\n`;
}

/**
 * dnsmasq's arguments for a network with `dhcp` (never a shell string): one dnsmasq per network, in
 * the foreground, DHCP only, bound to the network's host interface. The range begins `dhcp.start`
 * addresses into the subnet and holds `dhcp.limit` addresses (defaults 100 and 150, cut to fit the
 * subnet), above the host's and the chute's addresses and below the broadcast address; the lease is
 * `dhcp.lease` (or `leasetime`), 12 hours by default. The router option is the gateway, the DNS
 * server option the IPv4 addresses of `dns` (none without).
 *
 * @throws Error naming the field: `dhcp` missing, `dhcp.start` or `dhcp.limit` outside the subnet, a
 *   reservation without a subnet, gateway or lease file, a `dns` entry that is no IP address, a value
 *   with a line break or NUL.
 * @example
 * dnsmasqArgs({ type: 'vlan', intfName: 'lan1', vlan_id: 20, dhcp: { start: 10, limit: 20, lease: '1h' } }, reservation, {})
 * // ['--keep-in-foreground', '--conf-file=/dev/null', '--port=0', '--interface=br-lan.20', '--bind-interfaces', '--except-interface=lo',
 * //  '--dhcp-range=10.128.0.10,10.128.0.29,255.255.255.0,3600s', '--dhcp-leasefile=…', '--dhcp-option=option:router,10.128.0.1',
 * //  '--dhcp-authoritative', '--pid-file', '--log-facility=-']
 */
export function dnsmasqArgs(entry: AccessPointEntry | VlanEntry, reservation: NetworkReservation, files: { pidFile?: string }): string[] {
  if (entry.dhcp === undefined) throw new Error('dhcp is required: the network has no DHCP server to run');
  const iface = interfaceName(reservation);
  const subnet = reservation.ipv4Network === null ? undefined : parseCidr(reservation.ipv4Network);
  if (subnet === undefined) throw new Error(`reservation.ipv4Network must be an IPv4 network in slash notation, not ${String(reservation.ipv4Network)}`);
  const gateway = reservation.gateway === null ? undefined : ipv4Number(reservation.gateway);
  if (gateway === undefined) throw new Error(`reservation.gateway must be an IPv4 address, not ${String(reservation.gateway)}`);
  if (reservation.leaseFile === null) throw new Error('reservation.leaseFile is required: dnsmasq keeps its leases there');
  const offsets = {
    start: entry.dhcp.start === undefined ? undefined : integer(entry.dhcp.start, 'dhcp.start', 0),
    limit: entry.dhcp.limit === undefined ? undefined : integer(entry.dhcp.limit, 'dhcp.limit', 1),
  };
  const range = dhcpRange(offsets, subnet, [gateway, ...(reservation.chuteAddress === null ? [] : [ipv4Number(reservation.chuteAddress) ?? gateway])]);
  const args = [
    '--keep-in-foreground',
    '--conf-file=/dev/null',
    '--port=0',
    `--interface=${iface}`,
    '--bind-interfaces',
    '--except-interface=lo',
    `--dhcp-range=${ipv4Text(range.first)},${ipv4Text(range.last)},${ipv4Text(prefixMask(subnet.prefix))},${leaseText(leaseSeconds(entry))}`,
    `--dhcp-leasefile=${lineValue(reservation.leaseFile, 'reservation.leaseFile')}`,
    `--dhcp-option=option:router,${ipv4Text(gateway)}`,
  ];
  const dns = dnsServers(entry.dns);
  if (dns.length > 0) args.push(`--dhcp-option=option:dns-server,${dns.join(',')}`);
  args.push('--dhcp-authoritative', files.pidFile === undefined ? '--pid-file' : `--pid-file=${lineValue(files.pidFile, 'pidFile')}`, '--log-facility=-');
  return args;
}

// --- hostapd --------------------------------------------------------------------------------------

/** The host interface, checked: the daemons get it as a value of their own syntax. */
function interfaceName(reservation: NetworkReservation): string {
  const name = reservation.hostInterface;
  if (!INTERFACE_NAME.test(name))
    throw new Error(`reservation.hostInterface must be an interface name of 1 to 15 letters, digits, '.', '-' or '_', not ${JSON.stringify(name)}`);
  return name;
}

/** `ctrl_interface`: the folder of the control socket, which hostapd names after the interface. */
function controlDirectory(reservation: NetworkReservation): string {
  const control = reservation.hostapdControl;
  if (control === null) throw new Error('reservation.hostapdControl is required: an access point has a hostapd control socket');
  lineValue(control, 'reservation.hostapdControl');
  if (!control.startsWith('/')) throw new Error(`reservation.hostapdControl must be an absolute path, not ${JSON.stringify(control)}`);
  const slash = control.lastIndexOf('/');
  if (control.slice(slash + 1) !== reservation.hostInterface) {
    throw new Error(`reservation.hostapdControl must be named after the interface (${reservation.hostInterface}), as hostapd names its socket: ${control}`);
  }
  return slash === 0 ? '/' : control.slice(0, slash);
}

/**
 * `ssid=` as written when it is printable ASCII without a space at either end; otherwise hostapd's
 * `ssid2=<hex digits>`, with `utf8_ssid=1` when it is not ASCII.
 */
function ssidLines(ssid: string): ConfLine[] {
  lineValue(ssid, 'ssid');
  const bytes = ENCODER.encode(ssid);
  if (bytes.length < 1 || bytes.length > 32) throw new Error(`ssid must be 1 to 32 bytes of UTF-8, not ${bytes.length}`);
  if (PRINTABLE_ASCII.test(ssid) && ssid.trim() === ssid) return [['ssid', ssid, 'ssid']];
  const lines: ConfLine[] = [['ssid2', hexBytes(bytes), 'ssid']];
  if (bytes.some((byte) => byte >= 0x80)) lines.push(['utf8_ssid', 1, 'ssid']);
  return lines;
}

/** Band, channel, country and 802.11n/ac/ax of a radio. */
function radioLines(radio: Extract<AccessPointRadio, { kind: 'radio' }>): ConfLine[] {
  const { hwmode, channel, htmode, country } = radio;
  if (channel !== 'auto' && !Number.isInteger(channel)) throw new Error(`radio.channel must be a channel number or auto, not ${String(channel)}`);
  const band = radioBand({ channel, hwmode });
  if (channel !== 'auto' && band === null) throw new Error(`radio.channel ${channel} is in neither the 2.4 GHz nor the 5 GHz band`);
  if (band === '2g' && (hwmode === '11a' || hwmode === '11ac')) throw new Error(`radio.hwmode ${hwmode} is a 5 GHz mode, and channel ${channel} is 2.4 GHz`);
  if (band === '5g' && (hwmode === '11b' || hwmode === '11g')) throw new Error(`radio.hwmode ${hwmode} is a 2.4 GHz mode, and channel ${channel} is 5 GHz`);
  const lines: ConfLine[] = [];
  if (country !== undefined) {
    if (!/^[A-Z]{2}$/.test(country)) throw new Error(`radio.country must be two capital letters (ISO 3166-1 alpha-2), not ${JSON.stringify(country)}`);
    lines.push(['country_code', country, 'radio.country'], ['ieee80211d', 1, 'radio.country']);
  }
  lines.push(['hw_mode', band === '5g' ? 'a' : hwmode === '11b' ? 'b' : 'g', 'radio.hwmode'], ['channel', channel === 'auto' ? 0 : channel, 'radio.channel']);
  if (hwmode === '11n' || hwmode === '11ac' || hwmode === '11ax') {
    lines.push(['wmm_enabled', 1, 'radio.hwmode'], ['ieee80211n', 1, 'radio.hwmode']);
    const secondary = secondaryChannel(htmode, channel, band);
    if (secondary !== null) lines.push(['ht_capab', `[HT40${secondary}]`, 'radio.htmode']);
    // 802.11ax on 5 GHz builds on 802.11ac, as OpenWrt configures it.
    if (hwmode === '11ac' || (hwmode === '11ax' && band === '5g')) lines.push(['ieee80211ac', 1, 'radio.hwmode']);
    if (hwmode === '11ax') lines.push(['ieee80211ax', 1, 'radio.hwmode']);
  }
  return lines;
}

/**
 * The side of the 40 MHz secondary channel: HT40+ and HT40- say it; another width of 40 MHz or more
 * takes OpenWrt's rule (5 GHz: above on channels 36, 44, 52, …; 2.4 GHz: above up to channel 6);
 * none for 20 MHz, or for an unsigned width with `auto`.
 */
function secondaryChannel(htmode: string | undefined, channel: number | 'auto', band: string | null): '+' | '-' | null {
  if (htmode === 'HT40+') return '+';
  if (htmode === 'HT40-') return '-';
  if (htmode === undefined || !/^(HT40|VHT(40|80|160)|HE(40|80|160))$/.test(htmode) || channel === 'auto') return null;
  if (band === '5g') return Math.floor(channel / 4) % 2 === 1 ? '+' : '-';
  return channel < 7 ? '+' : '-';
}

/** WPA2-PSK with CCMP: a passphrase of 8 to 63 printable ASCII characters, or a raw key of 64 hex digits. */
function wpaLines(key: string): ConfLine[] {
  const lines: ConfLine[] = [
    ['wpa', 2, 'key'],
    ['wpa_key_mgmt', 'WPA-PSK', 'key'],
    ['rsn_pairwise', 'CCMP', 'key'],
  ];
  lineValue(key, 'key');
  if (RAW_WPA_KEY.test(key)) return [...lines, ['wpa_psk', key, 'key']];
  if (key.length >= 8 && key.length <= 63 && PRINTABLE_ASCII.test(key)) return [...lines, ['wpa_passphrase', key, 'key']];
  throw new Error('key must be a WPA passphrase of 8 to 63 printable ASCII characters, or 64 hex digits');
}

/** NAS identifier and RADIUS accounting (port 1813). */
function radiusLines(options: NonNullable<AccessPointEntry['options']>): ConfLine[] {
  const lines: ConfLine[] = [];
  if (options.nasid !== undefined) lines.push(['nas_identifier', options.nasid, 'options.nasid']);
  if (options.acct_server === undefined) {
    const orphan = (['acct_secret', 'acct_interval'] as const).find((field) => options[field] !== undefined);
    if (orphan !== undefined) throw new Error(`options.${orphan} needs options.acct_server, the RADIUS accounting server it is for`);
    return lines;
  }
  const server = lineValue(options.acct_server, 'options.acct_server');
  if (!isIpAddress(server)) {
    throw new Error(`options.acct_server must be an IPv4 or IPv6 address (hostapd takes no host name), not ${JSON.stringify(server)}`);
  }
  lines.push(['acct_server_addr', server, 'options.acct_server'], ['acct_server_port', 1813, 'options.acct_server']);
  if (options.acct_secret !== undefined) lines.push(['acct_server_shared_secret', options.acct_secret, 'options.acct_secret']);
  if (options.acct_interval !== undefined) {
    lines.push(['radius_acct_interim_interval', integer(options.acct_interval, 'options.acct_interval', 1), 'options.acct_interval']);
  }
  return lines;
}

// --- dnsmasq --------------------------------------------------------------------------------------

/** A lease time as dnsmasq reads it: `<seconds>s`, `infinite`, or 12 hours by default. */
function leaseText(seconds: number | undefined): string {
  if (seconds === undefined) return DHCP_DEFAULTS.lease;
  return seconds > MAX_LEASE_SECONDS ? 'infinite' : `${seconds}s`;
}

/** The IPv4 addresses of `dns`, in order (IPv6 ones left out: DHCPv4 cannot carry them). */
function dnsServers(dns: readonly string[] | undefined): string[] {
  return (dns ?? []).flatMap((server, index) => {
    const value = ipv4Number(server);
    if (value !== undefined) return [ipv4Text(value)];
    if (isIpAddress(server)) return [];
    throw new Error(`dns[${index}] must be an IPv4 or IPv6 address, not ${JSON.stringify(server)}`);
  });
}

// --- values ---------------------------------------------------------------------------------------

/** A value as text, refused when it holds a line break or NUL (a value could then add a line, or be cut). */
function lineValue(value: string | number, field: string): string {
  const text = String(value);
  if (/[\n\r\0]/.test(text)) throw new Error(`${field} must not contain a line break or NUL`);
  return text;
}

/** An integer option, checked again: the entry may come from anywhere. */
function integer(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${field} must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}, not ${JSON.stringify(value)}`);
  }
  return value;
}
