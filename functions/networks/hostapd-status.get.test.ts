import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { accessPoint, chuteDevice, hostapdCommands } from '../../test/support/chute-devices.ts';
import { rawFixture } from '../../test/support/info-devices.ts';
import { HttpProblem } from '../core/problem.ts';
import * as hostapdStatus from './hostapd-status.get.ts';

const WLAN = { chute: 'hello', network: 'wlan' };

describe('GET /api/v1/chutes/:chute/networks/:network/hostapd_status', () => {
  it("responds with 200 and hostapd's STATUS as strings, indexed keys kept", async () => {
    const device = chuteDevice();
    const { status, body } = await callFunction(hostapdStatus, device, WLAN);
    expect(status).toBe(200);
    expect(body).toMatchObject({ channel: '36', ieee80211ac: '1', 'bss[0]': 'wlan0', 'ssid[0]': 'U1AT3OTPX-RPI4', 'num_sta[0]': '3' });
    expect(hostapdCommands(device)).toEqual([['STATUS']]);
  });

  it("responds with 200 without hostapd_cli's Selected interface line", async () => {
    const device = chuteDevice({
      networks: { 'hello/wlan': accessPoint({ hostapdStatus: rawFixture('hostapd_status/tiiuae_selected_interface_partial.txt') }) },
    });
    const { body } = await callFunction<Record<string, string>>(hostapdStatus, device, WLAN);
    expect(body.state).toBe('ENABLED');
    expect(Object.keys(body).filter((key) => key.includes('Selected'))).toEqual([]);
  });

  it('responds with 502 when hostapd answers FAIL', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ hostapdStatus: 'FAIL\n' }) } });
    expect(await callFunction(hostapdStatus, device, WLAN)).toMatchObject({
      status: 502,
      body: { detail: 'hostapd answered STATUS for network wlan with no field: FAIL' },
    });
  });

  it("responds with the 503 or 504 the host side throws when hostapd's socket is absent or silent", async () => {
    for (const problem of [
      new HttpProblem(503, 'hostapd control socket /var/run/hostapd/vwlan3f2a does not exist'),
      new HttpProblem(504, 'hostapd did not answer STATUS within 5 s'),
    ]) {
      const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ fails: { hostapd: problem } }) } });
      expect(await callFunction(hostapdStatus, device, WLAN)).toMatchObject({ status: problem.status, body: { detail: problem.message } });
    }
  });

  it('responds with 409 for a VLAN network, 404 for an unknown one', async () => {
    expect((await callFunction(hostapdStatus, chuteDevice(), { chute: 'hello', network: 'guest' })).status).toBe(409);
    expect((await callFunction(hostapdStatus, chuteDevice(), { chute: 'hello', network: 'nope' })).status).toBe(404);
    expect((await callFunction(hostapdStatus, chuteDevice(), { chute: 'nope', network: 'wlan' })).status).toBe(404);
  });
});
