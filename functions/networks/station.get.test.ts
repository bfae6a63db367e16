import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { accessPoint, chuteDevice, labAccessPoint, STATIONS, WIRED_STATION } from '../../test/support/chute-devices.ts';
import { HttpProblem } from '../core/problem.ts';
import * as station from './station.get.ts';

const params = (mac: string, network = 'wlan') => ({ chute: 'hello', network, mac });

describe('GET /api/v1/chutes/:chute/networks/:network/stations/:mac', () => {
  it('responds with 200 and the record of that station', async () => {
    const { status, body } = await callFunction(station, chuteDevice(), params(STATIONS[1]));
    expect(status).toBe(200);
    expect(body).toMatchObject({ mac_addr: STATIONS[1], inactive_time: '6530 ms', tx_bitrate: '150.0 MBit/s MCS 7 40MHz short GI' });
  });

  it('takes the MAC address in any case and asks iw for it in lower case', async () => {
    const device = chuteDevice();
    const { status, body } = await callFunction(station, device, params(STATIONS[1].toUpperCase()));
    expect(status).toBe(200);
    expect(body).toMatchObject({ mac_addr: STATIONS[1] });
    expect(device.calls.map((c) => [c.operation, c.args])).toEqual([['stationGet', [STATIONS[1]]]]);
  });

  it('responds with 200 and the station of hostapd where iw cannot answer, 404 for a MAC hostapd does not know', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': labAccessPoint() } });
    const { status, body } = await callFunction(station, device, params(WIRED_STATION.toUpperCase()));
    expect(status).toBe(200);
    expect(body).toMatchObject({ mac_addr: WIRED_STATION, authorized: 'yes', dot1xAuthSessionUserName: 'probe' });
    expect(device.calls.map((c) => c.operation)).toEqual(['stationGet', 'hostapdStations']);
    expect((await callFunction(station, device, params('02:cb:00:00:01:99'))).status).toBe(404);
  });

  it('responds with 404 for a station that is not connected', async () => {
    const { status, body } = await callFunction(station, chuteDevice(), params('02:00:00:00:00:99'));
    expect(status).toBe(404);
    expect(body).toMatchObject({ detail: 'no station 02:00:00:00:00:99 is connected to network wlan' });
  });

  it('responds with 400 naming params.mac for a malformed MAC address, without running iw', async () => {
    const device = chuteDevice();
    for (const mac of ['08:66:98:b6:bd', '08-66-98-b6-bd-6d', '08:66:98:b6:bd:6g', 'x']) {
      const { status, body } = await callFunction(station, device, params(mac));
      expect(status).toBe(400);
      expect(body).toMatchObject({ errors: [{ path: 'params.mac', message: 'must be a MAC address such as 02:00:00:aa:bb:cc' }] });
    }
    expect(device.calls).toEqual([]);
  });

  it('responds with 409 for a station of a VLAN network', async () => {
    expect((await callFunction(station, chuteDevice(), params(STATIONS[0], 'guest'))).status).toBe(409);
  });

  it('responds with 404 for an unknown chute or network', async () => {
    expect((await callFunction(station, chuteDevice(), { ...params(STATIONS[0]), chute: 'nope' })).status).toBe(404);
    expect((await callFunction(station, chuteDevice(), params(STATIONS[0], 'nope'))).status).toBe(404);
  });

  it('responds with the 504 the host side throws when iw does not answer in time', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ fails: { stationGet: new HttpProblem(504, 'iw did not answer within 5 s') } }) } });
    expect(await callFunction(station, device, params(STATIONS[0]))).toMatchObject({ status: 504, body: { detail: 'iw did not answer within 5 s' } });
  });
});
