import { describe, expect, it } from 'vitest';
import { rawFixture } from '../../test/support/info-devices.ts';
import { parseStationDump, stationBlocks, stationKey, stationMeasure } from './iw-station.ts';

/** The fields ParaDrop's station record names, in its key spelling. */
const SEED_KEYS = [
  'rx_packets',
  'tx_packets',
  'rx_bytes',
  'tx_bytes',
  'tx_retries',
  'tx_failed',
  'tdls_peer',
  'authenticated',
  'authorized',
  'mfp',
  'wmm_wme',
  'preamble',
  'tx_bitrate',
  'rx_bitrate',
  'signal',
  'signal_avg',
  'inactive_time',
  'mac_addr',
];

describe('iw station dump of an access point (four-space indent, four chains)', () => {
  const stations = parseStationDump(rawFixture('station_dump/rust_test_three_stations_4space.txt'));

  it('gives one record per Station block, in order, with its MAC', () => {
    expect(stations.map((s) => s.mac_addr)).toEqual(['08:66:98:b6:bd:6d', '5c:f7:e6:1c:36:f7', '54:88:0e:ab:fb:81']);
  });

  it('has every key of the seed station record, values as iw printed them', () => {
    const first = stations[0]!;
    for (const key of SEED_KEYS) expect(first, key).toHaveProperty(key);
    expect(first).toMatchObject({
      inactive_time: '22430 ms',
      rx_bytes: '718014',
      tx_retries: '1',
      signal: '-63 [-86, -63, -100, -100] dBm',
      signal_avg: '-64 [-79, -64, -100, -100] dBm',
      tx_bitrate: '702.0 MBit/s VHT-MCS 8 80MHz VHT-NSS 2',
      rx_bitrate: '24.0 MBit/s',
      wmm_wme: 'yes',
      mfp: 'no',
      tdls_peer: 'no',
      preamble: 'long',
    });
  });

  it('reads the keys newer iw prints by the same rule', () => {
    expect(stations[0]).toMatchObject({
      tx_duration: '11494 us',
      airtime_weight: '256',
      dtim_period: '2',
      beacon_interval: '100',
      short_slot_time: 'yes',
      connected_time: '4257 seconds',
      'associated_at_[boottime]': '42.228s',
      associated_at: '1645652326500 ms',
      current_time: '1645656582641 ms',
    });
  });

  it('keeps an HT rate with its MCS, width and guard interval words', () => {
    expect(stations[1]!.tx_bitrate).toBe('150.0 MBit/s MCS 7 40MHz short GI');
    expect(stations[2]!.rx_bitrate).toBe('144.4 MBit/s MCS 15 short GI');
  });

  it('ends a block at the next Station line and reads the last block to the end of the text', () => {
    expect(stations[1]!.current_time).toBe('1645656582642 ms');
    expect(stations[2]).toMatchObject({ rx_bytes: '745497', preamble: 'long', connected_time: '4140 seconds' });
  });
});

describe('iw station dump with tabs', () => {
  it('reads tab separators, a double tab after MFP and keys glued to their values', () => {
    const [station] = parseStationDump(rawFixture('station_dump/go_comment_intel_vht_beaconrx_tabs.txt'));
    expect(station).toMatchObject({
      mac_addr: '04:f0:21:32:3f:d2',
      signal: '-60 [-60, -60] dBm',
      signal_avg: '-59 dBm',
      beacon_rx: '2325',
      beacon_signal_avg: '-58 dBm',
      rx_drop_misc: '207',
      mfp: 'yes',
      beacon_interval: '100',
      short_slot_time: 'yes',
      tx_bitrate: '650.0 MBit/s VHT-MCS 7 80MHz short GI VHT-NSS 2',
    });
  });

  it('reads the BSS parameter lines of a client interface', () => {
    const [station] = parseStationDump(rawFixture('station_dump/intel_wlp3s0_cts_shortpreamble_tabs.txt'));
    expect(station).toMatchObject({ mac_addr: 'a4:12:42:xx:xx:xx', cts_protection: 'yes', short_preamble: 'yes', signal_avg: '93 dBm' });
  });

  it('reads two stations that have no signal lines', () => {
    const stations = parseStationDump(rawFixture('station_dump/yocto_hotspot_two_stations_tabs.txt'));
    expect(stations).toHaveLength(2);
    expect(stations[1]).toMatchObject({ mac_addr: '00:25:ca:8c:19:67', connected_time: '397 seconds', tx_bitrate: '72.2 MBit/s' });
    expect(stations[1]).not.toHaveProperty('signal');
  });

  it('reads a partial block with four-chain signal lists', () => {
    const [station] = parseStationDump(rawFixture('station_dump/openwrt_pkgs16471_ipq4019_4chain_partial.txt'));
    expect(station).toEqual({
      mac_addr: '8c:be:be:f5:8f:59',
      inactive_time: '1160 ms',
      rx_bytes: '3859',
      rx_packets: '101',
      tx_bytes: '2160',
      tx_packets: '12',
      tx_retries: '0',
      tx_failed: '3',
      rx_drop_misc: '5',
      signal: '-67 [-67, -77, -95, -95] dBm',
      signal_avg: '-74 [-74, -83, -95, -95] dBm',
    });
  });
});

describe('iw station get', () => {
  it('reads the one block, with eight-space indents and a unit glued to its number', () => {
    const stations = parseStationDump(rawFixture('station_get/mt76_issue17_expected_throughput_spaces.txt'));
    expect(stations).toHaveLength(1);
    expect(stations[0]).toMatchObject({
      mac_addr: '10:6f:3f:0e:31:8f',
      signal: '75 [72, 75] dBm',
      expected_throughput: '3.808Mbps',
      connected_time: '6191 seconds',
    });
  });
});

describe('iw station dump of a Wi-Fi 7 multi-link (MLO) station', () => {
  const stations = parseStationDump(rawFixture('station_dump/mlo_per_link_mixed_indent.txt'));
  const station = stations[0]!;

  it('reads the station fields, indented with tabs or spaces alike', () => {
    expect(stations).toHaveLength(1);
    expect(station).toMatchObject({
      mac_addr: '00:03:7f:04:31:78',
      authorized: 'yes',
      rx_bytes: '1439',
      tx_packets: '8',
      current_time: '474340 ms',
      mld_address: '00:03:7f:04:31:78',
    });
  });

  it('keeps each Link block as a record of its own, not mixed into the station', () => {
    expect(station.links).toHaveLength(2);
    expect(station.links![0]).toMatchObject({ link_id: '0', address: '00:03:7f:04:31:78', rx_bytes: '116', signal: '-95 dBm', beacon_interval: '100' });
    expect(station.links![1]).toMatchObject({ link_id: '1', address: '00:03:7f:04:31:79', rx_bytes: '1323', rx_bitrate: '6.0 MBit/s' });
    expect(station).not.toHaveProperty('signal');
    expect(station).not.toHaveProperty('address');
  });

  it('reads a link line indented with a tab and spaces at the same depth as its neighbours', () => {
    expect(station.links![1]!.rx_duration).toBe('0 us');
  });
});

describe('iw station dump: rules beyond the samples', () => {
  it('reads what iw 6.x prints for an MLO station: link blocks after the station, each tab-indented', () => {
    const text = [
      'Station 02:00:00:00:01:00 (on wlan0)',
      '\tauthorized:\tyes',
      '\tconnected time:\t12 seconds',
      '\tcurrent time:\t1731975697273 ms',
      '',
      '\tLink 0:',
      '\t\taddress: 02:00:00:00:01:10',
      '\t\tsignal:  \t-41 [-43, -44] dBm',
      '\t\ttx bitrate:\t2882.3 MBit/s 160MHz EHT-MCS 11 EHT-NSS 2 EHT-GI 0',
      '\tLink 2:',
      '\t\taddress: 02:00:00:00:01:12',
      '\t\trx bitrate:\t(unknown)',
      '',
      'Station 02:00:00:00:02:00 (on wlan0)',
      '\tinactive time:\t10 ms',
      '',
    ].join('\n');
    const stations = parseStationDump(text);
    expect(stations).toEqual([
      {
        mac_addr: '02:00:00:00:01:00',
        authorized: 'yes',
        connected_time: '12 seconds',
        current_time: '1731975697273 ms',
        links: [
          { link_id: '0', address: '02:00:00:00:01:10', signal: '-41 [-43, -44] dBm', tx_bitrate: '2882.3 MBit/s 160MHz EHT-MCS 11 EHT-NSS 2 EHT-GI 0' },
          { link_id: '2', address: '02:00:00:00:01:12', rx_bitrate: '(unknown)' },
        ],
      },
      { mac_addr: '02:00:00:00:02:00', inactive_time: '10 ms' },
    ]);
  });

  it('reads HE rates, ack signals and mesh lines by the same key rule', () => {
    const text =
      'Station 1c:3b:f3:00:00:01 (on phy0-ap0)\n' +
      '\ttx bitrate:\t1200.9 MBit/s 80MHz HE-MCS 11 HE-NSS 2 HE-GI 0 HE-DCM 0\n' +
      '\trx bitrate:\t(unknown)\n' +
      '\tlast ack signal:-52 dBm\n' +
      '\tavg ack signal:\t-51 dBm\n' +
      '\tToffset:\t-1234 us\n' +
      '\tmesh local PS mode:\tLIGHT SLEEP\n' +
      '\tmesh airtime link metric: 110\n';
    expect(parseStationDump(text)[0]).toEqual({
      mac_addr: '1c:3b:f3:00:00:01',
      tx_bitrate: '1200.9 MBit/s 80MHz HE-MCS 11 HE-NSS 2 HE-GI 0 HE-DCM 0',
      rx_bitrate: '(unknown)',
      last_ack_signal: '-52 dBm',
      avg_ack_signal: '-51 dBm',
      toffset: '-1234 us',
      mesh_local_ps_mode: 'LIGHT SLEEP',
      mesh_airtime_link_metric: '110',
    });
  });

  it('skips the tables of station dump -v (a header without value, rows without a colon)', () => {
    const text =
      'Station 02:00:00:00:03:00 (on wlan0)\n' +
      '\trx bytes:\t100\n' +
      '\tMSDU:\n' +
      '\tTID\trx\ttx\ttx retries\ttx failed\n' +
      '\t0\t12\t3\t0\t\t0\n' +
      '\tTXQs:\n' +
      '\t\tTID\tqsz-byt\tqsz-pkt\tflows\tdrops\tmarks\toverlmt\thashcol\ttx-bytes\ttx-packets\n' +
      '\t\t0\t0\t0\t4\t0\t0\t0\t0\t910\t7\n' +
      '\tconnected time:\t5 seconds\n';
    expect(parseStationDump(text)).toEqual([{ mac_addr: '02:00:00:00:03:00', rx_bytes: '100', connected_time: '5 seconds' }]);
  });

  it('reads Windows line ends and ignores text before the first Station line', () => {
    const text = 'command failed: ignored\r\nStation aa:bb:cc:dd:ee:ff (on wlan0)\r\n\tsignal:  \t-50 dBm\r\n';
    expect(parseStationDump(text)).toEqual([{ mac_addr: 'aa:bb:cc:dd:ee:ff', signal: '-50 dBm' }]);
  });

  it('starts a station at a Station line after any white space, as stationBlocks splits the dump', () => {
    const text = '\fStation aa:bb:cc:dd:ee:ff (on wlan0)\n\tsignal:  \t-50 dBm\n';
    expect(stationBlocks(text).map((block) => parseStationDump(block.text))).toEqual([[{ mac_addr: 'aa:bb:cc:dd:ee:ff', signal: '-50 dBm' }]]);
  });

  it('gives no station for an empty dump', () => {
    expect(parseStationDump('')).toEqual([]);
    expect(parseStationDump('\n')).toEqual([]);
  });

  it('turns each space and slash of a key into an underscore and lower-cases it', () => {
    expect(stationKey('WMM/WME')).toBe('wmm_wme');
    expect(stationKey('TDLS peer')).toBe('tdls_peer');
    expect(stationKey('associated at [boottime]')).toBe('associated_at_[boottime]');
  });
});

describe('iw station dump split into station blocks', () => {
  it('gives each station its block verbatim, the header line included, as station get prints it', () => {
    const dump = rawFixture('station_dump/yocto_hotspot_two_stations_tabs.txt');
    const blocks = stationBlocks(dump);
    expect(blocks.map((b) => b.mac)).toEqual(['1e:19:6f:3a:c8:bb', '00:25:ca:8c:19:67']);
    expect(blocks.map((b) => b.text).join('')).toBe(dump);
    expect(parseStationDump(blocks[1]!.text)).toEqual([parseStationDump(dump)[1]]);
  });

  it('keeps the link blocks of a multi-link station in its block, and text before the first station in none', () => {
    const dump = rawFixture('station_dump/mlo_per_link_mixed_indent.txt');
    expect(stationBlocks(`noise\n${dump}`)).toEqual([{ mac: '00:03:7f:04:31:78', text: dump }]);
  });
});

describe('iw station dump: each station read by the same rules, whatever the station before it printed', () => {
  /** A dump of stations 02:00:00:00:00:01, …:02, … with the given lines, each indented with a tab. */
  const dump = (...stations: string[][]) =>
    `${stations.map((lines, n) => [`Station 02:00:00:00:00:0${n + 1} (on wlan0)`, ...lines.map((line) => `\t${line}`)].join('\n')).join('\n')}\n`;
  const FLAGS = ['authorized:\tyes', 'authenticated:\tyes', 'MFP:\t\tno'];

  it('reads a station that prints a line more, a line less or its lines in another order', () => {
    const stations = parseStationDump(
      dump(
        ['signal:  \t-50 dBm', 'rx bytes:\t10'],
        ['signal:  \t-51 dBm', 'rx bytes:\t11'],
        ['signal:  \t-52 dBm', 'tx bytes:\t5', 'rx bytes:\t12'],
        ['rx bytes:\t13'],
        ['rx bytes:\t14', 'signal:  \t-54 dBm'],
      ),
    );
    expect(stations).toEqual([
      { mac_addr: '02:00:00:00:00:01', signal: '-50 dBm', rx_bytes: '10' },
      { mac_addr: '02:00:00:00:00:02', signal: '-51 dBm', rx_bytes: '11' },
      { mac_addr: '02:00:00:00:00:03', signal: '-52 dBm', tx_bytes: '5', rx_bytes: '12' },
      { mac_addr: '02:00:00:00:00:04', rx_bytes: '13' },
      { mac_addr: '02:00:00:00:00:05', rx_bytes: '14', signal: '-54 dBm' },
    ]);
    expect(Object.keys(stations[4]!)).toEqual(['mac_addr', 'rx_bytes', 'signal']);
  });

  it('tells apart keys that start alike, and reads a separator with more or fewer blanks', () => {
    const stations = parseStationDump(
      dump(
        ['signal:\t-50 dBm', 'rx bytes:\t1'],
        ['signal:\t-51 dBm', 'rx bytes:\t2'],
        ['signal:\t\t-52 dBm', 'rx bytes:\t3'],
        ['signal:\t-53 dBm', 'rx bytes:4'],
        ['signal avg:\t-54 dBm', 'rx bytes:4'],
      ),
    );
    expect(stations).toEqual([
      { mac_addr: '02:00:00:00:00:01', signal: '-50 dBm', rx_bytes: '1' },
      { mac_addr: '02:00:00:00:00:02', signal: '-51 dBm', rx_bytes: '2' },
      { mac_addr: '02:00:00:00:00:03', signal: '-52 dBm', rx_bytes: '3' },
      { mac_addr: '02:00:00:00:00:04', signal: '-53 dBm', rx_bytes: '4' },
      { mac_addr: '02:00:00:00:00:05', signal_avg: '-54 dBm', rx_bytes: '4' },
    ]);
  });

  it('reads a flag that changes after several stations printed it alike', () => {
    const stations = parseStationDump(
      dump(
        ['rx bytes:\t1', ...FLAGS],
        ['rx bytes:\t2', ...FLAGS],
        ['rx bytes:\t3', ...FLAGS],
        ['rx bytes:\t4', 'authorized:\tno', ...FLAGS.slice(1)],
        ['rx bytes:\t5', ...FLAGS],
      ),
    );
    expect(stations.map((s) => [s.rx_bytes, s.authorized, s.authenticated, s.mfp])).toEqual([
      ['1', 'yes', 'yes', 'no'],
      ['2', 'yes', 'yes', 'no'],
      ['3', 'yes', 'yes', 'no'],
      ['4', 'no', 'yes', 'no'],
      ['5', 'yes', 'yes', 'no'],
    ]);
  });

  it('reads a value that gains words or trailing blanks, and a blank line or a table after a station', () => {
    const stations = parseStationDump(
      dump(
        ['rx bytes:\t1', ...FLAGS],
        ['rx bytes:\t2', ...FLAGS],
        ['rx bytes:\t3', 'authorized:\tyes', 'authenticated:\tyes', 'MFP:\t\tnot'],
        ['rx bytes:\t4', 'authorized:\tyes  ', 'authenticated:\tyes', 'MFP:\t\tno'],
        ['rx bytes:\t5', ...FLAGS],
        ['rx bytes:\t6', ...FLAGS, '', 'TID\trx'],
        ['rx bytes:\t7', ...FLAGS],
      ),
    );
    expect(stations.map((s) => [s.rx_bytes, s.authorized, s.mfp])).toEqual([
      ['1', 'yes', 'no'],
      ['2', 'yes', 'no'],
      ['3', 'yes', 'not'],
      ['4', 'yes', 'no'],
      ['5', 'yes', 'no'],
      ['6', 'yes', 'no'],
      ['7', 'yes', 'no'],
    ]);
  });

  it('starts a new station at a Station line where the station before had a field named like one', () => {
    const text = 'Station 02:00:00:00:00:01 (on wlan0)\n\tStation 02:x\nStation 02:00:00:00:00:02 (on wlan0)\n\tStation 02:00:00:00:00:03 (on wlan0)\n';
    expect(parseStationDump(text)).toEqual([
      { mac_addr: '02:00:00:00:00:01', station_02: 'x' },
      { mac_addr: '02:00:00:00:00:02' },
      { mac_addr: '02:00:00:00:00:03' },
    ]);
  });

  it('reads repeated stations with Windows line ends', () => {
    const text = dump(['rx bytes:\t1\r', 'authorized:\tyes\r'], ['rx bytes:\t2\r', 'authorized:\tyes\r'], ['rx bytes:\t3\r', 'authorized:\tno\r']).replaceAll(
      '(on wlan0)\n',
      '(on wlan0)\r\n',
    );
    expect(parseStationDump(text).map((s) => [s.rx_bytes, s.authorized])).toEqual([
      ['1', 'yes'],
      ['2', 'yes'],
      ['3', 'no'],
    ]);
  });

  it('reads a dump whose every station prints keys of its own', () => {
    const stations = parseStationDump(dump(...Array.from({ length: 40 }, (_, n) => [`rx bytes:\t${n}`, `key ${n}:\tv${n}`])));
    expect(stations).toHaveLength(40);
    for (const [n, station] of stations.entries())
      expect(Object.entries(station).slice(1)).toEqual([
        ['rx_bytes', `${n}`],
        [`key_${n}`, `v${n}`],
      ]);
  });

  it('keeps keys that are array indices or repeated, as reading line by line does', () => {
    const stations = parseStationDump(
      dump(['1:\tone', 'rx bytes:\t1'], ['1:\tuno', 'rx bytes:\t2'], ['signal:\t-1', 'signal:\t-2'], ['signal:\t-3', 'signal:\t-4']),
    );
    expect(stations).toEqual([
      { mac_addr: '02:00:00:00:00:01', 1: 'one', rx_bytes: '1' },
      { mac_addr: '02:00:00:00:00:02', 1: 'uno', rx_bytes: '2' },
      { mac_addr: '02:00:00:00:00:03', signal: '-2' },
      { mac_addr: '02:00:00:00:00:04', signal: '-4' },
    ]);
  });
});

describe('stationMeasure', () => {
  it('reads the number of a field in its unit, without the per-chain list or the words after the unit', () => {
    expect(stationMeasure('-44 [-47, -49, -53] dBm', 'dBm')).toBe(-44);
    expect(stationMeasure('-52 dBm', 'dBm')).toBe(-52);
    expect(stationMeasure('866.7 MBit/s VHT-MCS 9 80MHz short GI VHT-NSS 2', 'MBit/s')).toBe(866.7);
    expect(stationMeasure('310 ms', 'ms')).toBe(310);
    expect(stationMeasure('1873 seconds', 'seconds')).toBe(1873);
  });

  it('answers null for a value in another unit, without a unit, glued to its unit, or missing', () => {
    expect(stationMeasure('310 ms', 'seconds')).toBeNull();
    expect(stationMeasure('188317445', 'bytes')).toBeNull();
    expect(stationMeasure('3.808Mbps', 'Mbps')).toBeNull();
    expect(stationMeasure('(unknown)', 'dBm')).toBeNull();
    expect(stationMeasure(undefined, 'dBm')).toBeNull();
  });
});
