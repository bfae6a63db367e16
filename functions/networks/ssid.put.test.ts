import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { accessPoint, chuteDevice, hostapdCommands } from '../../test/support/chute-devices.ts';
import { HttpProblem } from '../core/problem.ts';
import * as hostapdStatus from './hostapd-status.get.ts';
import * as ssid from './ssid.get.ts';
import * as ssidUpdate from './ssid.put.ts';

const WLAN = { chute: 'hello', network: 'wlan' };

describe('PUT /api/v1/chutes/:chute/networks/:network/ssid', () => {
  it('responds with 200 and a message after SET ssid and RELOAD, and GET and STATUS show the new SSID', async () => {
    const device = chuteDevice();
    const { status, body } = await callFunction(ssidUpdate, device, WLAN, { ssid: 'lab 🌝' });
    expect(status).toBe(200);
    expect(body).toEqual({ message: 'OK' });
    expect(hostapdCommands(device)).toEqual([['SET', 'ssid', 'lab 🌝'], ['RELOAD']]);
    expect((await callFunction(ssid, device, WLAN)).body).toEqual({ ssid: 'lab 🌝', bssid: '24:05:0f:f7:30:9f' });
    expect((await callFunction<Record<string, string>>(hostapdStatus, device, WLAN)).body['ssid[0]']).toBe('lab \\xf0\\x9f\\x8c\\x9d');
  });

  it('accepts an SSID of exactly 32 bytes, and ignores a bssid sent back from a GET', async () => {
    const device = chuteDevice();
    const name = 'é'.repeat(16);
    expect((await callFunction(ssidUpdate, device, WLAN, { ssid: name, bssid: '24:05:0f:f7:30:9f' })).status).toBe(200);
    expect(hostapdCommands(device)[0]).toEqual(['SET', 'ssid', name]);
  });

  const invalid: [string, unknown, string][] = [
    ['a missing ssid', {}, 'is required'],
    ['an ssid that is not a string', { ssid: 42 }, 'must be a string'],
    ['an empty ssid', { ssid: '' }, 'must not be empty'],
    ['an ssid of 33 bytes', { ssid: 'x'.repeat(33) }, 'must be at most 32 bytes in UTF-8'],
    ['an ssid of 17 characters that are 34 bytes in UTF-8', { ssid: 'é'.repeat(17) }, 'must be at most 32 bytes in UTF-8'],
    ['an ssid with a line feed', { ssid: 'lab\nSET wpa 0' }, 'must not contain control characters'],
  ];
  for (const [what, body, message] of invalid) {
    it(`responds with 422 naming body.ssid for ${what}, and sends nothing to hostapd`, async () => {
      const device = chuteDevice();
      const answer = await callFunction(ssidUpdate, device, WLAN, body);
      expect(answer).toMatchObject({ status: 422, body: { errors: [{ path: 'body.ssid', message }] } });
      expect(hostapdCommands(device)).toEqual([]);
    });
  }

  it('responds with 422 naming the body when there is none', async () => {
    const device = chuteDevice();
    expect(await callFunction(ssidUpdate, device, WLAN)).toMatchObject({ status: 422, body: { errors: [{ path: 'body' }] } });
    expect(hostapdCommands(device)).toEqual([]);
  });

  it('responds with 502 when hostapd refuses SET, and does not reload', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ hostapdReplies: { SET: 'FAIL\n' } }) } });
    expect(await callFunction(ssidUpdate, device, WLAN, { ssid: 'lab' })).toMatchObject({
      status: 502,
      body: { detail: 'hostapd refused SET ssid for network wlan: FAIL' },
    });
    expect(hostapdCommands(device)).toEqual([['SET', 'ssid', 'lab']]);
    expect((await callFunction(ssid, device, WLAN)).body).toMatchObject({ ssid: 'café 5G' });
  });

  it('responds with 502 when hostapd refuses RELOAD', async () => {
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ hostapdReplies: { RELOAD: "Selected interface 'vwlan3f2a'\nFAIL\n" } }) } });
    expect(await callFunction(ssidUpdate, device, WLAN, { ssid: 'lab' })).toMatchObject({
      status: 502,
      body: { detail: 'hostapd refused RELOAD for network wlan: FAIL' },
    });
  });

  it('responds with the 503 the host side throws when hostapd_cli is missing', async () => {
    const problem = new HttpProblem(503, 'hostapd_cli is not installed (looked for /usr/sbin/hostapd_cli)');
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ fails: { hostapd: problem } }) } });
    expect(await callFunction(ssidUpdate, device, WLAN, { ssid: 'lab' })).toMatchObject({ status: 503, body: { detail: problem.message } });
  });

  it('responds with 409 for a VLAN network and 404 for an unknown network or chute, before reading the body', async () => {
    expect((await callFunction(ssidUpdate, chuteDevice(), { chute: 'hello', network: 'guest' }, { ssid: 'lab' })).status).toBe(409);
    expect((await callFunction(ssidUpdate, chuteDevice(), { chute: 'hello', network: 'nope' }, {})).status).toBe(404);
    expect((await callFunction(ssidUpdate, chuteDevice(), { chute: 'nope', network: 'wlan' }, { ssid: 'lab' })).status).toBe(404);
  });
});
