import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { chuteDevice } from '../../test/support/chute-devices.ts';
import * as networks from './networks.get.ts';

describe('GET /api/v1/chutes/:chute/networks', () => {
  it("responds with 200 and a summary of each network of the chute's configuration, in order", async () => {
    const { status, body } = await callFunction(networks, chuteDevice(), { chute: 'hello' });
    expect(status).toBe(200);
    expect(body).toEqual([
      { name: 'wlan', type: 'wifi', interface: 'wlan0' },
      { name: 'guest', type: 'vlan', interface: 'eth1' },
      { name: 'mon', type: 'wifi', interface: 'mon0' },
      { name: 'mesh', type: 'wifi', interface: 'mesh0' },
    ]);
  });

  it('responds with 200 and an empty list for a chute without networks', async () => {
    expect(await callFunction(networks, chuteDevice(), { chute: 'bare' })).toEqual({ status: 200, body: [] });
  });

  it('responds with 404 for an unknown chute', async () => {
    const { status, body } = await callFunction<{ detail: string }>(networks, chuteDevice(), { chute: 'nope' });
    expect(status).toBe(404);
    expect(body.detail).toContain('nope');
  });

  it('responds with 400 naming params.chute for a name that cannot be a chute', async () => {
    const { status, body } = await callFunction(networks, chuteDevice(), { chute: '../etc' });
    expect(status).toBe(400);
    expect(body).toMatchObject({ errors: [{ path: 'params.chute' }] });
  });
});
