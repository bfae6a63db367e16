import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { accessPoint, chuteDevice, hostapdCommands } from '../../test/support/chute-devices.ts';
import { HttpProblem } from '../core/problem.ts';
import * as ssid from './ssid.get.ts';

const WLAN = { chute: 'hello', network: 'wlan' };

describe('GET /api/v1/chutes/:chute/networks/:network/ssid', () => {
  it("responds with 200 and the SSID, decoded from hostapd's escapes, and the BSSID", async () => {
    const device = chuteDevice();
    expect(await callFunction(ssid, device, WLAN)).toEqual({ status: 200, body: { ssid: 'café 5G', bssid: '24:05:0f:f7:30:9f' } });
    expect(hostapdCommands(device)).toEqual([['GET_CONFIG']]);
  });

  it('responds with 200 and an emoji SSID that hostapd printed as \\xNN bytes', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ hostapdConfig: 'bssid=aa:bb:cc:ee:12:34\nssid=\\xf0\\x9f\\x8c\\x9d\n' }) } });
    expect((await callFunction(ssid, device, WLAN)).body).toEqual({ ssid: '🌝', bssid: 'aa:bb:cc:ee:12:34' });
  });

  it('responds with 502 when hostapd answers GET_CONFIG without an ssid', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ hostapdConfig: 'FAIL\n' }) } });
    expect(await callFunction(ssid, device, WLAN)).toMatchObject({ status: 502, body: { detail: "hostapd's GET_CONFIG reply for network wlan has no ssid" } });
  });

  it('responds with the 504 the host side throws when hostapd does not answer in time', async () => {
    const device = chuteDevice({
      networks: { 'hello/wlan': accessPoint({ fails: { hostapd: new HttpProblem(504, 'hostapd did not answer GET_CONFIG within 5 s') } }) },
    });
    expect((await callFunction(ssid, device, WLAN)).status).toBe(504);
  });

  it('responds with 409 for a monitor interface, 404 for an unknown network or chute', async () => {
    expect((await callFunction(ssid, chuteDevice(), { chute: 'hello', network: 'mon' })).status).toBe(409);
    expect((await callFunction(ssid, chuteDevice(), { chute: 'hello', network: 'nope' })).status).toBe(404);
    expect((await callFunction(ssid, chuteDevice(), { chute: 'nope', network: 'wlan' })).status).toBe(404);
  });
});
