import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { accessPoint, chuteDevice, chuteDeviceSpec, labAccessPoint, NO_WIFI_STACK, STATIONS, WIRED_STATION } from '../../test/support/chute-devices.ts';
import * as devices from './devices.get.ts';

/** The memory device's clock: 2026-11-21 12:00 UTC, in seconds. */
const AS_OF = Date.UTC(2026, 10, 21, 12, 0, 0) / 1000;
const GUEST_LEASES = '1645661000 02:00:00:00:0a:01 10.10.0.7 printer 01:02:00:00:00:0a:01\n';

/** `chuteDevice` with a lease file recorded for the VLAN network `guest`, and what it holds. */
function withGuestLeases(leases: string | null) {
  const spec = chuteDeviceSpec();
  const cache = spec.chutes!.hello!.cache as { networks: Record<string, unknown> };
  cache.networks.guest = { hostInterface: 'eth1.10', leaseFile: '/var/lib/chutebox/dnsmasq/hello-guest.leases' };
  return chuteDevice({ ...spec, networks: { ...spec.networks, 'hello/guest': { leases } } });
}

describe('GET /api/v1/network/devices', () => {
  it("lists every lease of the chutes' networks in ParaDrop's shape, each with its chute, network and station", async () => {
    const { status, body } = await callFunction(devices, withGuestLeases(GUEST_LEASES), {});
    expect(status).toBe(200);
    expect(body).toEqual([
      {
        mac_addr: STATIONS[0],
        ip_addr: '192.168.128.23',
        hostname: 'phone',
        client_id: `01:${STATIONS[0]}`,
        expires: 1645660000,
        as_of: AS_OF,
        chute: 'hello',
        network: 'wlan',
        station: {
          signal: '-63 [-86, -63, -100, -100] dBm',
          signal_avg: '-64 [-79, -64, -100, -100] dBm',
          tx_bitrate: '702.0 MBit/s VHT-MCS 8 80MHz VHT-NSS 2',
          rx_bitrate: '24.0 MBit/s',
          inactive_time: '22430 ms',
          connected_time: '4257 seconds',
        },
      },
      // The file writes this MAC in upper case; an infinite lease, no host name or client id sent.
      expect.objectContaining({
        mac_addr: STATIONS[1].toUpperCase(),
        hostname: '*',
        client_id: null,
        expires: 0,
        station: expect.objectContaining({ inactive_time: '6530 ms' }),
      }),
      // A client that has left: its lease stays, without a station. The IPv6 lease has no MAC and is left out.
      expect.objectContaining({ mac_addr: '02:00:00:00:00:99', ip_addr: '192.168.128.99', station: null }),
      // A VLAN network has leases and no stations.
      {
        mac_addr: '02:00:00:00:0a:01',
        ip_addr: '10.10.0.7',
        hostname: 'printer',
        client_id: '01:02:00:00:00:0a:01',
        expires: 1645661000,
        as_of: AS_OF,
        chute: 'hello',
        network: 'guest',
        station: null,
      },
    ]);
  });

  it("joins hostapd's stations where iw cannot answer", async () => {
    const { body } = await callFunction(devices, chuteDevice({ networks: { 'hello/wlan': labAccessPoint() } }), {});
    expect(body).toEqual([expect.objectContaining({ mac_addr: WIRED_STATION, ip_addr: '192.168.128.50', station: expect.objectContaining({ signal: null }) })]);
  });

  it('answers an empty list on a device whose networks have handed out no lease, without asking for stations', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ leases: '', fails: { stationDump: NO_WIFI_STACK } }) } });
    expect(await callFunction(devices, device, {})).toEqual({ status: 200, body: [] });
    expect(device.calls.map((call) => call.operation)).not.toContain('stationDump');
  });

  it("answers the access point's problem when it has leases and cannot list its stations", async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ fails: { stationDump: NO_WIFI_STACK } }) } });
    const { status, body } = await callFunction<{ detail: string }>(devices, device, {});
    expect(status).toBe(503);
    expect(body.detail).toContain('no WiFi stack');
  });

  it('leaves out a network whose lease file is not recorded: it has handed out no lease', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ leases: '' }), 'hello/guest': { leases: GUEST_LEASES } } });
    expect(await callFunction(devices, device, {})).toEqual({ status: 200, body: [] });
  });

  it('answers an empty list on a device without chutes', async () => {
    expect(await callFunction(devices, chuteDevice({ chutes: {} }), {})).toEqual({ status: 200, body: [] });
  });
});
