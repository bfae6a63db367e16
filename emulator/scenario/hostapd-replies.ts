import { encodeSsid, parseHostapdReply } from '../../functions/parsers/hostapd.ts';

/** Where a hostapd runs: its radio's phy (`''` on the wired driver, which has none) and its BSS's address. */
export interface HostapdHost {
  phy: string;
  bssid: string;
}

/** hostapd's replies to `STATUS` and `GET_CONFIG`, each ending in a newline. */
export interface HostapdReplies {
  status: string;
  config: string;
}

/**
 * What hostapd 2.10 replies to `STATUS` and `GET_CONFIG` right after it started with the hostapd.conf
 * `conf` (one BSS, `interface=`), no station associated yet: its fields in hostapd's order
 * (`hostapd_ctrl_iface_status`, `hostapd_ctrl_iface_get_config`), the SSID as hostapd prints it
 * (`encodeSsid`, from `ssid=` or `ssid2=`). On the wired driver there is no radio: no phy, frequency 0,
 * channel 0 and no 802.11n/ac/ax fields, as a lab's hostapd answers. On a radio the channel's frequency,
 * 802.11n/ac/ax as configured, and what the driver would report of its radio as a 2×2 one
 * (`DRIVER_RADIO`); channel 0 (ACS) is taken as the band's first channel.
 *
 * @example
 * hostapdReplies('interface=vwlan5d1e\ndriver=nl80211\nssid=lab\nhw_mode=g\nchannel=6\n', { phy: 'phy0', bssid: '06:f0:21:34:5a:9e' }).config
 * // 'bssid=06:f0:21:34:5a:9e\nssid=lab\nwps_state=disabled\n'
 */
export function hostapdReplies(conf: string, host: HostapdHost): HostapdReplies {
  const fields = parseHostapdReply(conf);
  const ssid = encodeSsid(fields.ssid2 === undefined ? (fields.ssid ?? '') : DECODER.decode(bytesOfHex(fields.ssid2)));
  return {
    status: `${[...radioLines(fields, host.phy), `bss[0]=${fields.interface ?? ''}`, `bssid[0]=${host.bssid}`, `ssid[0]=${ssid}`, 'num_sta[0]=0'].join('\n')}\n`,
    config: `${[`bssid=${host.bssid}`, `ssid=${ssid}`, 'wps_state=disabled', ...securityLines(fields)].join('\n')}\n`,
  };
}

/**
 * What a radio's driver tells hostapd and hostapd prints as it is: the MCS sets of a 2×2 radio, and
 * the highest transmit power of a channel (dBm) in each band.
 */
export const DRIVER_RADIO = { htMcsBitmask: 'ffff0000000000000000', vhtMcsMap: 'fffa', maxTxPower: { '2g': 20, '5g': 23 } } as const;

/** The rates of each `hw_mode` (hostapd's `supported_rates`, in 500 kb/s units, hex). */
const RATES: Record<string, string> = {
  b: '02 04 0b 16',
  g: '02 04 0b 16 0c 12 18 24 30 48 60 6c',
  a: '0c 12 18 24 30 48 60 6c',
};

/** `ht_capab`'s HT_CAP_INFO bits: hostapd's default (SM power save disabled) and the 40 MHz one. */
const HT_CAP_SMPS_DISABLED = 0x000c;
const HT_CAP_40MHZ = 0x0002;

/** The interface-wide part of `STATUS`, before the BSS lines. */
function radioLines(fields: Record<string, string>, phy: string): string[] {
  const wired = fields.driver === 'wired';
  const band = fields.hw_mode === 'a' ? '5g' : '2g';
  const configured = Number(fields.channel ?? 0);
  const channel = wired ? 0 : configured !== 0 ? configured : band === '5g' ? 36 : 1;
  const [n, ac, ax] = wired ? [false, false, false] : (['ieee80211n', 'ieee80211ac', 'ieee80211ax'] as const).map((key) => fields[key] === '1');
  const htCapab = fields.ht_capab ?? '';
  const secondary = htCapab.includes('[HT40+]') ? 1 : htCapab.includes('[HT40-]') ? -1 : 0;
  const lines = [
    'state=ENABLED',
    `phy=${phy}`,
    `freq=${wired ? 0 : frequency(channel, band)}`,
    ...['num_sta_non_erp', 'num_sta_no_short_slot_time', 'num_sta_no_short_preamble', 'olbc', 'num_sta_ht_no_gf', 'num_sta_no_ht'].map((key) => `${key}=0`),
    ...['num_sta_ht_20_mhz', 'num_sta_ht40_intolerant', 'olbc_ht'].map((key) => `${key}=0`),
    'ht_op_mode=0x0',
    'cac_time_seconds=0',
    'cac_time_left_seconds=N/A',
    `channel=${channel}`,
    'edmg_enable=0',
    'edmg_channel=0',
    `secondary_channel=${n ? secondary : 0}`,
    `ieee80211n=${Number(n)}`,
    `ieee80211ac=${Number(ac)}`,
    `ieee80211ax=${Number(ax)}`,
    'beacon_int=100',
    'dtim_period=2',
  ];
  if (ax) lines.push('he_oper_chwidth=0', 'he_oper_centr_freq_seg0_idx=0', 'he_oper_centr_freq_seg1_idx=0');
  if (ac) lines.push('vht_oper_chwidth=0', 'vht_oper_centr_freq_seg0_idx=0', 'vht_oper_centr_freq_seg1_idx=0', 'vht_caps_info=00000000');
  if (ac) lines.push(`rx_vht_mcs_map=${DRIVER_RADIO.vhtMcsMap}`, `tx_vht_mcs_map=${DRIVER_RADIO.vhtMcsMap}`);
  if (n) {
    const caps = HT_CAP_SMPS_DISABLED | (secondary === 0 ? 0 : HT_CAP_40MHZ);
    lines.push(`ht_caps_info=${caps.toString(16).padStart(4, '0')}`, `ht_mcs_bitmask=${DRIVER_RADIO.htMcsBitmask}`);
  }
  if (!wired) lines.push(`supported_rates=${RATES[fields.hw_mode ?? 'g'] ?? RATES.g}`, `max_txpower=${DRIVER_RADIO.maxTxPower[band]}`);
  return lines;
}

/** `GET_CONFIG`'s WPA fields: WPA2-PSK with CCMP as the conf sets it, nothing for an open network. */
function securityLines(fields: Record<string, string>): string[] {
  const wpa = Number(fields.wpa ?? 0);
  if (wpa === 0) return [];
  const lines = [`wpa=${wpa}`];
  if (fields.wpa_key_mgmt !== undefined) lines.push(`key_mgmt=${fields.wpa_key_mgmt}`);
  const pairwise = fields.rsn_pairwise ?? 'CCMP';
  lines.push(`group_cipher=${pairwise}`, `rsn_pairwise_cipher=${pairwise}`);
  return lines;
}

/** The centre frequency of a channel in MHz, as hostapd reports `freq`. */
function frequency(channel: number, band: '2g' | '5g'): number {
  if (band === '5g') return 5000 + 5 * channel;
  return channel === 14 ? 2484 : 2407 + 5 * channel;
}

/** The bytes of a string of hex digits (`ssid2=`). */
function bytesOfHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

const DECODER = new TextDecoder();
