import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { accessPoint, chuteDevice, STATIONS } from '../../test/support/chute-devices.ts';
import { HttpProblem } from '../core/problem.ts';
import * as leases from './leases.get.ts';

describe('GET /api/v1/chutes/:chute/networks/:network/leases', () => {
  it("responds with 200 and the access point's leases, IPv6 ones without a MAC", async () => {
    const { status, body } = await callFunction(leases, chuteDevice(), { chute: 'hello', network: 'wlan' });
    expect(status).toBe(200);
    expect(body).toEqual([
      { expires: '1645660000', mac_addr: STATIONS[0], ip_addr: '192.168.128.23', hostname: 'phone', client_id: `01:${STATIONS[0]}` },
      { expires: '0', mac_addr: STATIONS[1].toUpperCase(), ip_addr: '192.168.128.40', hostname: '*' },
      { expires: '1645660100', mac_addr: '02:00:00:00:00:99', ip_addr: '192.168.128.99', hostname: 'gone' },
      { expires: '1645660200', ip_addr: 'fd00:128::23', hostname: 'phone', client_id: '00:01:00:01:2c:4a:5b:6c:08:66:98:b6:bd:6d' },
    ]);
  });

  it('responds with 200 and an empty list for a VLAN network whose lease file does not exist yet', async () => {
    expect(await callFunction(leases, chuteDevice(), { chute: 'hello', network: 'guest' })).toEqual({ status: 200, body: [] });
  });

  it('responds with 409 for a monitor interface', async () => {
    const { status, body } = await callFunction(leases, chuteDevice(), { chute: 'hello', network: 'mon' });
    expect(status).toBe(409);
    expect(body).toMatchObject({
      detail: 'cannot read DHCP leases: network mon of chute hello is a Wi-Fi monitor interface, not a Wi-Fi access point or a VLAN network',
    });
  });

  it('responds with 404 for an unknown chute or network', async () => {
    expect((await callFunction(leases, chuteDevice(), { chute: 'nope', network: 'wlan' })).status).toBe(404);
    expect((await callFunction(leases, chuteDevice(), { chute: 'bare', network: 'wlan' })).status).toBe(404);
  });

  it('responds with the 503 the host side throws when the lease file is not recorded', async () => {
    const problem = new HttpProblem(503, 'network wlan of chute hello has no lease file recorded');
    const device = chuteDevice({ networks: { 'hello/wlan': accessPoint({ fails: { leases: problem } }) } });
    expect(await callFunction(leases, device, { chute: 'hello', network: 'wlan' })).toMatchObject({ status: 503, body: { detail: problem.message } });
  });
});
