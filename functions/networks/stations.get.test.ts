import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { accessPoint, chuteDevice, labAccessPoint, NO_WIFI_STACK, STATIONS, WIRED_STATION } from '../../test/support/chute-devices.ts';
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

  it("responds with 200 and the stations hostapd knows where iw cannot answer (a lab link), in iw's shape", async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': labAccessPoint() } });
    const { status, body } = await callFunction<Record<string, string>[]>(stations, device, WLAN);
    expect(status).toBe(200);
    expect(body).toEqual([
      expect.objectContaining({ mac_addr: WIRED_STATION, authorized: 'yes', authenticated: 'no', associated: 'no', flags: '[AUTHORIZED]' }),
    ]);
    // A wired station has no radio: nothing is made up for it.
    expect(body[0]).not.toHaveProperty('signal');
    expect(device.calls.map((c) => c.operation)).toEqual(['stationDump', 'hostapdStations']);
  });

  it('responds with 504 as iw does, without asking hostapd, when iw does not answer in time', async () => {
    const problem = new HttpProblem(504, 'iw did not answer within 5 s');
    const device = chuteDevice({ networks: { 'hello/wlan': labAccessPoint({ fails: { stationDump: problem } }) } });
    expect(await callFunction(stations, device, WLAN)).toMatchObject({ status: 504, body: { detail: problem.message } });
    expect(device.calls.map((c) => c.operation)).toEqual(['stationDump']);
  });

  it('responds with the problem of hostapd, naming why iw could not answer either, when neither can list the stations', async () => {
    for (const [iw, hostapd] of [
      [NO_WIFI_STACK, new HttpProblem(503, 'hostapd control socket /var/run/hostapd/vwlan3f2a does not exist (is hostapd running for this network?)')],
      [
        new HttpProblem(503, 'iw is not installed on PATH (as iw)'),
        new HttpProblem(504, 'hostapd did not answer on its control socket /var/run/hostapd/vwlan3f2a in time'),
      ],
      [
        new HttpProblem(503, 'network wlan of chute hello has no hostInterface recorded (chute cache networks.wlan.hostInterface)'),
        new HttpProblem(503, 'network wlan of chute hello has no hostapdControl recorded (chute cache networks.wlan.hostapdControl)'),
      ],
    ]) {
      const device = chuteDevice({ networks: { 'hello/wlan': labAccessPoint({ fails: { stationDump: iw, hostapdStations: hostapd } }) } });
      expect(await callFunction(stations, device, WLAN)).toMatchObject({
        status: hostapd!.status,
        body: { detail: `${iw!.message}; nor can hostapd list the stations: ${hostapd!.message}` },
      });
    }
  });
});
