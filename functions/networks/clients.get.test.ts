import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { accessPoint, chuteDevice, labAccessPoint, STATIONS, WIRED_STATION } from '../../test/support/chute-devices.ts';
import { rawFixture } from '../../test/support/info-devices.ts';
import * as clients from './clients.get.ts';

const WLAN = { chute: 'hello', network: 'wlan' };

describe('GET /api/v1/chutes/:chute/networks/:network/clients', () => {
  it('responds with 200 and each station joined with its lease by MAC address', async () => {
    const { status, body } = await callFunction(clients, chuteDevice(), WLAN);
    expect(status).toBe(200);
    expect(body).toEqual([
      {
        mac_addr: STATIONS[0],
        ip_addr: '192.168.128.23',
        hostname: 'phone',
        signal: '-63 [-86, -63, -100, -100] dBm',
        signal_avg: '-64 [-79, -64, -100, -100] dBm',
        tx_bitrate: '702.0 MBit/s VHT-MCS 8 80MHz VHT-NSS 2',
        rx_bitrate: '24.0 MBit/s',
        inactive_time: '22430 ms',
        connected_time: '4257 seconds',
      },
      // The lease file writes this MAC in upper case, and the client sent no host name (`*`).
      expect.objectContaining({ mac_addr: STATIONS[1], ip_addr: '192.168.128.40', hostname: null, inactive_time: '6530 ms' }),
      // No lease: the address is unknown.
      expect.objectContaining({ mac_addr: STATIONS[2], ip_addr: null, hostname: null, signal: '-59 [-68, -59, -100, -100] dBm' }),
    ]);
  });

  it('gives null for what iw does not print, and no address when the lease file does not exist', async () => {
    const device = chuteDevice({
      networks: { 'hello/wlan': accessPoint({ stationDump: rawFixture('station_dump/yocto_hotspot_two_stations_tabs.txt'), leases: null }) },
    });
    const { body } = await callFunction<Record<string, unknown>[]>(clients, device, WLAN);
    expect(body[0]).toEqual({
      mac_addr: '1e:19:6f:3a:c8:bb',
      ip_addr: null,
      hostname: null,
      signal: null,
      signal_avg: null,
      tx_bitrate: '58.5 MBit/s',
      rx_bitrate: '52.0 MBit/s',
      inactive_time: '0 ms',
      connected_time: '6 seconds',
    });
  });

  it("joins hostapd's stations with their lease where iw cannot answer: null for what a wired station has not", async () => {
    const { status, body } = await callFunction(clients, chuteDevice({ networks: { 'hello/wlan': labAccessPoint() } }), WLAN);
    expect(status).toBe(200);
    expect(body).toEqual([
      {
        mac_addr: WIRED_STATION,
        ip_addr: '192.168.128.50',
        hostname: 'probe',
        signal: null,
        signal_avg: null,
        tx_bitrate: null,
        rx_bitrate: null,
        inactive_time: null,
        connected_time: null,
      },
    ]);
  });

  it("gives hostapd's signal, rates and times in iw's format where iw cannot answer", async () => {
    const device = chuteDevice({
      networks: { 'hello/wlan': labAccessPoint({ hostapdStations: rawFixture('hostapd_all_sta/python_test_one_wmm_station.txt') }) },
    });
    const { body } = await callFunction<Record<string, unknown>[]>(clients, device, WLAN);
    expect(body).toEqual([
      {
        mac_addr: '0e:ed:c0:e3:59:0e',
        ip_addr: null,
        hostname: null,
        signal: '-38 dBm',
        signal_avg: null,
        tx_bitrate: '54.0 MBit/s',
        rx_bitrate: '54.0 MBit/s',
        inactive_time: '2408 ms',
        connected_time: '16 seconds',
      },
    ]);
  });

  it('answers the address of a lease file that changed while the stations stayed the same', async () => {
    const leased = (address: string) => chuteDevice({ networks: { 'hello/wlan': accessPoint({ leases: `1645660000 ${STATIONS[0]} ${address} phone *\n` }) } });
    const first = await callFunction<{ ip_addr: string | null }[]>(clients, leased('192.168.128.23'), WLAN);
    const second = await callFunction<{ ip_addr: string | null }[]>(clients, leased('192.168.128.99'), WLAN);
    expect([first.body[0]!.ip_addr, second.body[0]!.ip_addr]).toEqual(['192.168.128.23', '192.168.128.99']);
  });

  it('takes the lease that ends last when a lease file holds several for one MAC', async () => {
    const leases = `1700000000 ${STATIONS[0]} 10.0.0.5 old *\n1700009999 ${STATIONS[0]} 10.0.1.5 new *\n1700005000 ${STATIONS[0]} 10.0.2.5 mid *\n`;
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ leases }) } });
    const { body } = await callFunction<{ ip_addr: string }[]>(clients, device, WLAN);
    expect(body[0]!.ip_addr).toBe('10.0.1.5');
  });

  it('responds with 409 for a VLAN network, 404 for an unknown network or chute', async () => {
    expect((await callFunction(clients, chuteDevice(), { chute: 'hello', network: 'guest' })).status).toBe(409);
    expect((await callFunction(clients, chuteDevice(), { chute: 'hello', network: 'nope' })).status).toBe(404);
    expect((await callFunction(clients, chuteDevice(), { chute: 'nope', network: 'wlan' })).status).toBe(404);
  });
});
