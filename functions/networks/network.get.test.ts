import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { chuteDevice } from '../../test/support/chute-devices.ts';
import * as network from './network.get.ts';

describe('GET /api/v1/chutes/:chute/networks/:network', () => {
  it('responds with 200 and the summary of a Wi-Fi network', async () => {
    expect(await callFunction(network, chuteDevice(), { chute: 'hello', network: 'wlan' })).toEqual({
      status: 200,
      body: { name: 'wlan', type: 'wifi', interface: 'wlan0' },
    });
  });

  it('responds with 200 for a VLAN network and a monitor interface too', async () => {
    expect((await callFunction(network, chuteDevice(), { chute: 'hello', network: 'guest' })).body).toEqual({ name: 'guest', type: 'vlan', interface: 'eth1' });
    expect((await callFunction(network, chuteDevice(), { chute: 'hello', network: 'mon' })).body).toEqual({ name: 'mon', type: 'wifi', interface: 'mon0' });
  });

  it('responds with 404 for an unknown network, and for a net entry that is not a network', async () => {
    for (const name of ['nope', 'broken']) {
      const { status, body } = await callFunction<{ detail: string }>(network, chuteDevice(), { chute: 'hello', network: name });
      expect(status).toBe(404);
      expect(body.detail).toBe(`chute hello has no network named ${name}`);
    }
  });

  it('responds with 404 for an unknown chute before looking at the network', async () => {
    const { status, body } = await callFunction<{ detail: string }>(network, chuteDevice(), { chute: 'nope', network: 'wlan' });
    expect(status).toBe(404);
    expect(body.detail).toBe('there is no chute named nope');
  });

  it('responds with 400 naming params.network for a name with a slash', async () => {
    const { status, body } = await callFunction(network, chuteDevice(), { chute: 'hello', network: 'a/b' });
    expect(status).toBe(400);
    expect(body).toMatchObject({ errors: [{ path: 'params.network' }] });
  });
});
