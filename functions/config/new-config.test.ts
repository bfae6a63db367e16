import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { configDevice, routerHardware } from '../../test/config-devices.ts';
import { invoke } from '../core/invoke.ts';
import * as newConfig from './new-config.ts';
import * as newConfigUnderscore from './new_config.ts';

const STORED = 'firewall: { defaults: { input: DROP, output: ACCEPT, forward: DROP } }\nlan: { interfaces: [], proto: static, ipaddr: 10.0.0.1, netmask: 255.255.255.0 }\n';

const input = (headers: Record<string, string> = {}) => ({ params: {}, query: {}, headers, body: undefined, text: '' });

for (const [path, endpoint] of [
  ['/api/v1/config/new-config', newConfig],
  ['/api/v1/config/new_config', newConfigUnderscore],
] as const) {
  describe(`GET ${path}`, () => {
    it('responds with 200 and a configuration generated from the hardware, whatever is stored, and changes nothing', async () => {
      const device = configDevice(routerHardware, { stored: STORED });
      const out = await invoke(endpoint.handle, input(), device);
      expect(out.status).toBe(200);
      const json = JSON.parse(out.body);
      expect(json).toMatchObject({
        firewall: { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'REJECT' } },
        lan: { interfaces: ['eth1', 'eth2', 'eth10'] },
        wan: { interface: 'eth0', proto: 'dhcp' },
        wifi: [
          { id: 'pci-wifi-0', channel: 36, hwmode: '11a', htmode: 'VHT80' },
          { id: 'pci-wifi-1', channel: 1, hwmode: '11g', htmode: 'HT20' },
        ],
        telemetry: { enabled: true, interval: 60 },
      });
      expect(endpoint.response.safeParse(json).success).toBe(true);
      expect(await device.hostConfig.read()).toBe(STORED);
      expect(device.hostConfig.rendered.size).toBe(0);
      expect(device.submitted).toEqual([]);
    });

    it('responds with YAML when Accept asks for it', async () => {
      const out = await invoke(endpoint.handle, input({ accept: 'text/yaml' }), configDevice(routerHardware));
      expect(out.headers['content-type']).toBe('text/yaml; charset=utf-8');
      expect(parse(out.body).wan).toEqual({ interface: 'eth0', proto: 'dhcp' });
    });
  });
}

describe('the new-config routes', () => {
  it('are the two spellings of one endpoint', () => {
    expect([newConfig.route.path, newConfigUnderscore.route.path]).toEqual(['/api/v1/config/new-config', '/api/v1/config/new_config']);
    expect(newConfigUnderscore.handle).toBe(newConfig.handle);
  });
});
