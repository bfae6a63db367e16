import { describe, expect, it } from 'vitest';
import { rawFixture } from '../../test/support/info-devices.ts';
import { allStaBlocks, parseAllSta } from './hostapd-sta.ts';

/** What hostapd_cli all_sta printed (fixtures/raw/hostapd_all_sta/, provenance in fixtures/raw/SOURCES.tsv). */
const allSta = (name: string) => rawFixture(`hostapd_all_sta/${name}`);

describe('hostapd all_sta', () => {
  it('reads a wired 802.1X station: authorized but neither authenticated nor associated, its MIB verbatim, no radio fields', () => {
    const [station, ...others] = parseAllSta(allSta('chutebox_lab_wired_8021x_md5_authorized.txt'));
    expect(others).toEqual([]);
    expect(station).toMatchObject({
      mac_addr: '02:cb:00:00:01:02',
      flags: '[AUTHORIZED]',
      authorized: 'yes',
      authenticated: 'no',
      associated: 'no',
      aid: '0',
      supported_rates: '',
      timeout_next: 'NULLFUNC POLL',
      dot1xAuthSessionUserName: 'probe',
      dot1xAuthLastEapolFrameSource: '02:cb:00:00:01:02',
      last_eap_type_sta: '4 (MD5)',
    });
    // The wired driver reads no station data: nothing stands in for what hostapd did not print.
    for (const absent of ['signal', 'inactive_time', 'rx_bitrate', 'tx_bitrate', 'connected_time', 'rx_bytes', 'tx_packets']) {
      expect(station, absent).not.toHaveProperty(absent);
    }
  });

  it('reads a station hostapd is about to remove: no flag set, timeout_next REMOVE', () => {
    expect(parseAllSta(allSta('chutebox_lab_wired_deauthenticated.txt'))).toEqual([
      {
        mac_addr: '02:cb:00:00:01:02',
        flags: '',
        authorized: 'no',
        authenticated: 'no',
        associated: 'no',
        aid: '0',
        capability: '0x0',
        listen_interval: '0',
        supported_rates: '',
        timeout_next: 'REMOVE',
      },
    ]);
  });

  it('gives the counters, signal, rates and times of Wi-Fi stations in the format of iw, for each station in order', () => {
    const stations = parseAllSta(allSta('firewalla_test_two_he_stations.txt'));
    expect(stations.map((station) => station.mac_addr)).toEqual(['30:d5:3e:cf:f8:76', '62:b3:3f:01:76:13']);
    expect(stations[0]).toMatchObject({
      authorized: 'yes',
      authenticated: 'yes',
      associated: 'yes',
      flags: '[AUTH][ASSOC][AUTHORIZED][WMM][HT][VHT][HE]',
      rx_bytes: '863616',
      tx_packets: '2502',
      inactive_msec: '9840',
      inactive_time: '9840 ms',
      signal: '-58 dBm',
      rx_rate_info: '6485',
      rx_bitrate: '648.5 MBit/s',
      tx_bitrate: '288.2 MBit/s',
      last_ack_signal: '-57',
      connected_time: '604 seconds',
      AKMSuiteSelector: '00-0f-ac-2',
    });
    expect(stations[1]).toMatchObject({ connected_time: '6820 seconds', tx_bytes: '13602493376', signal: '-65 dBm' });
    expect(stations[1]).not.toHaveProperty('rx_bitrate');
  });

  it('reads one station of 54 MBit/s with its capabilities verbatim', () => {
    expect(parseAllSta(allSta('python_test_one_wmm_station.txt'))).toEqual([
      expect.objectContaining({
        mac_addr: '0e:ed:c0:e3:59:0e',
        capability: '0x1401',
        supported_rates: '82 84 8b 96 0c 12 18 24 30 48 60 6c',
        rx_bitrate: '54.0 MBit/s',
        tx_bitrate: '54.0 MBit/s',
        connected_time: '16 seconds',
        mbo_cell_capa: '1',
      }),
    ]);
  });

  it("keeps the words after the rate in hostapd's own field, and gives no bitrate for a rate of 0", () => {
    const [station] = parseAllSta('02:00:00:00:00:01\nrx_rate_info=650 mcs 7 shortGI\ntx_rate_info=0\nsignal=n/a\n');
    expect(station).toEqual({ mac_addr: '02:00:00:00:00:01', rx_rate_info: '650 mcs 7 shortGI', rx_bitrate: '65.0 MBit/s', tx_rate_info: '0', signal: 'n/a' });
  });

  it('answers no station for an empty reply, and ignores text before the first MAC line and lines without `=`', () => {
    expect(parseAllSta('')).toEqual([]);
    expect(parseAllSta("Selected interface 'wlan0'\nFAIL\n02:00:00:00:00:01\r\naid=1\r\nFAIL\n")).toEqual([{ mac_addr: '02:00:00:00:00:01', aid: '1' }]);
  });

  it('splits the reply into each station as `sta <mac>` prints it', () => {
    const text = allSta('firewalla_test_two_he_stations.txt');
    const blocks = allStaBlocks(text);
    expect(blocks.map((block) => block.mac)).toEqual(['30:d5:3e:cf:f8:76', '62:b3:3f:01:76:13']);
    expect(blocks.map((block) => block.text).join('')).toBe(text);
    expect(blocks[1]!.text.startsWith('62:b3:3f:01:76:13\nflags=')).toBe(true);
  });
});
