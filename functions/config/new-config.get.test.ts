import { describe, expect, it } from 'vitest';
import { configDevice, routerHardware } from '../../test/support/config-devices.ts';
import { callFunction, callFunctionRaw } from '../../test/support/call-function.ts';
import * as newConfig from './new-config.get.ts';
import type { HostConfiguration } from './schemas.ts';

const STORED =
  'firewall: { defaults: { input: DROP, output: ACCEPT, forward: DROP } }\nlan: { interfaces: [], proto: static, ipaddr: 10.0.0.1, netmask: 255.255.255.0 }\n';

describe('GET /api/v1/config/new-config', () => {
  it('responds with 200 and a configuration generated from the hardware, whatever is stored, and changes nothing', async () => {
    const device = configDevice(routerHardware, { stored: STORED });
    const { status, body } = await callFunction(newConfig, device);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      firewall: { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'REJECT' } },
      lan: { interfaces: ['eth1', 'eth2', 'eth10'] },
      wan: { interface: 'eth0', proto: 'dhcp' },
      wifi: [
        { id: 'pci-wifi-0', channel: 36, hwmode: '11a', htmode: 'VHT80' },
        { id: 'pci-wifi-1', channel: 1, hwmode: '11g', htmode: 'HT20' },
      ],
      telemetry: { enabled: true, interval: 60 },
    });
    expect(await device.hostConfig.read()).toBe(STORED);
    expect(device.hostConfig.rendered.size).toBe(0);
    expect(device.submitted).toEqual([]);
  });

  it('responds with YAML when Accept asks for it', async () => {
    const out = await callFunctionRaw<HostConfiguration>(newConfig, configDevice(routerHardware), { headers: { accept: 'text/yaml' } });
    expect(out.headers['content-type']).toBe('text/yaml; charset=utf-8');
    expect(out.body.wan).toEqual({ interface: 'eth0', proto: 'dhcp' });
  });
});

describe('GET /api/v1/config/new_config', () => {
  it("is new-config under ParaDrop's spelling: an alias of the one route, not a second endpoint", () => {
    expect(newConfig.route).toMatchObject({ path: '/api/v1/config/new-config', aliases: ['/api/v1/config/new_config'] });
  });
});
