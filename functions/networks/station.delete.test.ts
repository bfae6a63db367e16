import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { chuteDevice, hostapdCommands, labAccessPoint, STATIONS, WIRED_STATION } from '../../test/support/chute-devices.ts';
import * as stationDelete from './station.delete.ts';
import * as stations from './stations.get.ts';

const params = (mac: string, network = 'wlan') => ({ chute: 'hello', network, mac });

describe('DELETE /api/v1/chutes/:chute/networks/:network/stations/:mac', () => {
  it('responds with 200 and a message, and the station is gone from the station list', async () => {
    const device = chuteDevice();
    const { status, body } = await callFunction(stationDelete, device, params(STATIONS[0].toUpperCase()));
    expect(status).toBe(200);
    expect(body).toEqual({ message: `station ${STATIONS[0]} was disconnected from network wlan of chute hello` });
    const after = await callFunction<{ mac_addr: string }[]>(stations, device, { chute: 'hello', network: 'wlan' });
    expect(after.body.map((s) => s.mac_addr)).toEqual([STATIONS[1], STATIONS[2]]);
  });

  it("disconnects the station with hostapd's DEAUTHENTICATE where iw cannot answer, and it is gone from the station list", async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': labAccessPoint() } });
    const { status, body } = await callFunction(stationDelete, device, params(WIRED_STATION.toUpperCase()));
    expect(status).toBe(200);
    expect(body).toEqual({ message: `station ${WIRED_STATION} was disconnected from network wlan of chute hello` });
    expect(hostapdCommands(device)).toEqual([['DEAUTHENTICATE', WIRED_STATION]]);
    expect((await callFunction(stations, device, { chute: 'hello', network: 'wlan' })).body).toEqual([]);
  });

  it('responds with 404 where iw cannot answer for a station hostapd does not know, without deauthenticating it', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': labAccessPoint() } });
    expect((await callFunction(stationDelete, device, params('02:cb:00:00:01:99'))).status).toBe(404);
    expect(hostapdCommands(device)).toEqual([]);
  });

  it('responds with 502 naming what hostapd answered when it refuses to deauthenticate the station', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': labAccessPoint({ hostapdReplies: { DEAUTHENTICATE: 'FAIL\n' } }) } });
    const { status, body } = await callFunction(stationDelete, device, params(WIRED_STATION));
    expect(status).toBe(502);
    expect(body).toMatchObject({ detail: `hostapd answered DEAUTHENTICATE ${WIRED_STATION} with FAIL` });
  });

  it('responds with 404 for a station that is not connected', async () => {
    const { status, body } = await callFunction(stationDelete, chuteDevice(), params('02:00:00:00:00:99'));
    expect(status).toBe(404);
    expect(body).toMatchObject({ detail: 'no station 02:00:00:00:00:99 is connected to network wlan' });
  });

  it('responds with 400 for a malformed MAC address, without running iw', async () => {
    const device = chuteDevice();
    expect((await callFunction(stationDelete, device, params('not-a-mac'))).status).toBe(400);
    expect(device.calls).toEqual([]);
  });

  it('responds with 409 on a monitor interface and 404 for an unknown network or chute', async () => {
    expect((await callFunction(stationDelete, chuteDevice(), params(STATIONS[0], 'mon'))).status).toBe(409);
    expect((await callFunction(stationDelete, chuteDevice(), params(STATIONS[0], 'nope'))).status).toBe(404);
    expect((await callFunction(stationDelete, chuteDevice(), { ...params(STATIONS[0]), chute: 'nope' })).status).toBe(404);
  });
});
