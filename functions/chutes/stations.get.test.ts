import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { accessPoint, chuteDevice, STATIONS } from '../../test/support/chute-devices.ts';
import { rawFixture } from '../../test/support/info-devices.ts';
import { HttpProblem } from '../core/problem.ts';
import * as stations from './stations.get.ts';

const WLAN = { chute: 'hello', network: 'wlan' };

describe('GET /api/v1/chutes/:chute/networks/:network/stations', () => {
  it('responds with 200 and one record per connected station, as iw prints it', async () => {
    const { status, body } = await callFunction<Record<string, string>[]>(stations, chuteDevice(), WLAN);
    expect(status).toBe(200);
    expect(body.map((s) => s.mac_addr)).toEqual(STATIONS);
    expect(body[0]).toMatchObject({ signal: '-63 [-86, -63, -100, -100] dBm', tx_bitrate: '702.0 MBit/s VHT-MCS 8 80MHz VHT-NSS 2', wmm_wme: 'yes' });
  });

  it("runs iw on the host interface recorded in the chute's cache", async () => {
    const device = chuteDevice();
    await callFunction(stations, device, WLAN);
    expect(device.calls.map((c) => [c.operation, c.target])).toEqual([
      [
        'stationDump',
        {
          chute: 'hello',
          network: 'wlan',
          hostInterface: 'vwlan3f2a',
          hostapdControl: '/var/run/hostapd/vwlan3f2a',
          leaseFile: '/var/lib/chutebox/dnsmasq/hello-wlan.leases',
        },
      ],
    ]);
  });

  it('responds with 200 and an empty list when no station is connected', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ stationDump: '' }) } });
    expect(await callFunction(stations, device, WLAN)).toEqual({ status: 200, body: [] });
  });

  it('responds with 200 and the links of a Wi-Fi 7 multi-link station', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ stationDump: rawFixture('station_dump/mlo_per_link_mixed_indent.txt') }) } });
    const { body } = await callFunction<{ links: { link_id: string }[] }[]>(stations, device, WLAN);
    expect(body[0]!.links.map((l) => l.link_id)).toEqual(['0', '1']);
  });

  it('responds with 409 for a VLAN network and a monitor interface, without running iw', async () => {
    const device = chuteDevice();
    for (const network of ['guest', 'mon', 'mesh']) {
      const { status, body } = await callFunction<{ detail: string }>(stations, device, { chute: 'hello', network });
      expect(status).toBe(409);
      expect(body.detail).toMatch(new RegExp(`^cannot list stations: network ${network} of chute hello is .+, not a Wi-Fi access point$`));
    }
    expect(device.calls).toEqual([]);
  });

  it('responds with 404 for an unknown chute or network', async () => {
    expect((await callFunction(stations, chuteDevice(), { chute: 'nope', network: 'wlan' })).status).toBe(404);
    expect((await callFunction(stations, chuteDevice(), { chute: 'hello', network: 'nope' })).status).toBe(404);
  });

  it('responds with the 503 or 504 the host side throws, its detail naming what failed', async () => {
    for (const problem of [new HttpProblem(503, 'iw is not installed (looked for /usr/sbin/iw)'), new HttpProblem(504, 'iw did not answer within 5 s')]) {
      const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ fails: { stationDump: problem } }) } });
      expect(await callFunction(stations, device, WLAN)).toMatchObject({ status: problem.status, body: { detail: problem.message } });
    }
  });

  it('responds with 503 for a network whose host side has no resources', async () => {
    const problem = new HttpProblem(503, 'network wlan of chute hello has no hostInterface recorded (chute cache networks.wlan.hostInterface)');
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ fails: { stationDump: problem } }) } });
    expect(await callFunction(stations, device, WLAN)).toMatchObject({ status: 503, body: { detail: problem.message } });
  });
});
