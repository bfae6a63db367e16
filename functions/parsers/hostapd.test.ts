import { describe, expect, it } from 'vitest';
import { rawFixture } from '../../test/support/info-devices.ts';
import { decodeSsid, encodeSsid, hostapdAnswer, parseHostapdReply } from './hostapd.ts';

describe('hostapd STATUS', () => {
  it('reads key=value lines as strings, indexed per-BSS keys as they are', () => {
    const status = parseHostapdReply(rawFixture('hostapd_status/morrownr_8812au_vht80_partial.txt'));
    expect(status).toMatchObject({
      channel: '36',
      ieee80211ac: '1',
      vht_oper_chwidth: '1',
      cac_time_left_seconds: 'N/A',
      supported_rates: '0c 12 18 24 30 48 60 6c',
      'bss[0]': 'wlan0',
      'bssid[0]': '24:05:0f:f7:30:9f',
      'ssid[0]': 'U1AT3OTPX-RPI4',
      'num_sta[0]': '3',
    });
    expect(Object.keys(status)).toHaveLength(32);
  });

  it('skips the Selected interface line of hostapd_cli and a line without `=`', () => {
    const status = parseHostapdReply(rawFixture('hostapd_status/tiiuae_selected_interface_partial.txt'));
    expect(status).toMatchObject({ state: 'ENABLED', phy: 'phy0', freq: '2412', beacon_int: '1000', 'bss[0]': 'wlan1' });
    expect(Object.keys(status).some((key) => key.startsWith('Selected') || key.startsWith('....'))).toBe(false);
    expect(Object.keys(status)).toHaveLength(25);
  });

  it('keeps an escaped SSID verbatim and reads a reply without a final line end', () => {
    const status = parseHostapdReply(rawFixture('hostapd_status/go_test_dfs_ch52_escaped_ssid.txt').trimEnd());
    expect(status).toMatchObject({ 'ssid[0]': '\\xf0\\x9f\\x8c\\x9d', cac_time_seconds: '60', chan_util_avg: '96', ieee80211ax: '0' });
  });

  it('splits at the first `=` only, and skips the Selected interface line even when the name holds `=`', () => {
    expect(parseHostapdReply("Selected interface 'a=b'\r\nssid=x=y\r\nwpa_passphrase=\r\n")).toEqual({ ssid: 'x=y', wpa_passphrase: '' });
  });

  it('gives an empty record for a FAIL reply', () => {
    expect(parseHostapdReply('FAIL\n')).toEqual({});
  });
});

describe('hostapd GET_CONFIG', () => {
  it('reads bssid, ssid and the security settings', () => {
    const config = parseHostapdReply('bssid=02:00:00:00:03:00\nssid=lab\nwps_state=disabled\nwpa=2\nkey_mgmt=WPA-PSK\nrsn_pairwise_cipher=CCMP\n');
    expect(config).toEqual({ bssid: '02:00:00:00:03:00', ssid: 'lab', wps_state: 'disabled', wpa: '2', key_mgmt: 'WPA-PSK', rsn_pairwise_cipher: 'CCMP' });
  });
});

describe('hostapd one-word answers', () => {
  it('reads OK and FAIL with or without hostapd_cli around them', () => {
    expect(hostapdAnswer('OK\n')).toBe('OK');
    expect(hostapdAnswer("Selected interface 'wlan0'\nFAIL\n")).toBe('FAIL');
  });
});

describe('SSID escapes', () => {
  it('decodes \\xNN bytes as UTF-8', () => {
    expect(decodeSsid('\\xf0\\x9f\\x8c\\x9d')).toBe('🌝');
    expect(decodeSsid('caf\\xc3\\xa9')).toBe('café');
  });

  it('decodes the named escapes and octal ones the way hostapd does', () => {
    expect(decodeSsid('a\\\\b\\"c\\td\\ne\\rf\\eg')).toBe('a\\b"c\td\ne\rf\u001bg');
    expect(decodeSsid('\\101\\0\\x4')).toBe('A\u0000\u0004');
    expect(decodeSsid('\\q')).toBe('q');
    expect(decodeSsid('end\\')).toBe('end');
  });

  it('shows bytes that are not UTF-8 as U+FFFD and leaves plain text alone', () => {
    expect(decodeSsid('\\xff-lab')).toBe('\ufffd-lab');
    expect(decodeSsid('plain lab')).toBe('plain lab');
    expect(decodeSsid('déjà vu')).toBe('déjà vu');
  });

  it('encodes an SSID as hostapd prints it, and decoding gives it back', () => {
    expect(encodeSsid('🌝 "lab"\\')).toBe('\\xf0\\x9f\\x8c\\x9d \\"lab\\"\\\\');
    for (const ssid of ['lab', 'café 5G', '🌝', 'tab\there', 'x\u007fy']) expect(decodeSsid(encodeSsid(ssid))).toBe(ssid);
  });
});
