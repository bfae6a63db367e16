import { describe, expect, it } from 'vitest';
import { configDevice, routerHardware } from '../../test/support/config-devices.ts';
import { callFunctionRaw, type RawAnswer } from '../../test/support/call-function.ts';
import * as hostconfig from './hostconfig.get.ts';
import type { HostConfiguration } from './schemas.ts';

/** A stored host configuration with secrets: a Wi-Fi key and a PPPoE password. */
const STORED = `# The host configuration of chutebox
firewall:
  defaults: { input: ACCEPT, output: ACCEPT, forward: DROP }
lan:
  interfaces: [eth1]
  proto: static
  ipaddr: 10.0.0.1
  netmask: 255.255.255.0
wan: { interface: eth0, proto: pppoe, username: me@isp, password: pppoe-secret }
wifi:
  - { id: pci-wifi-0, channel: 6 }
wifi-interfaces:
  - { device: pci-wifi-0, ssid: home, encryption: psk2, key: hunter2hunter2 }
x_vendor: kept
`;

/** GET /api/v1/config/hostconfig with the given Accept header. */
function get<T = unknown>(device: ReturnType<typeof configDevice>, accept?: string): Promise<RawAnswer<T>> {
  return callFunctionRaw<T>(hostconfig, device, { headers: accept === undefined ? {} : { accept } });
}

describe('GET /api/v1/config/hostconfig', () => {
  it('responds with 200 and the stored configuration, every field kept, the Wi-Fi key and the PPPoE password [redacted]', async () => {
    const out = await get(configDevice(routerHardware, { stored: STORED }));
    expect(out.status).toBe(200);
    expect(out.headers).toMatchObject({ 'content-type': 'application/json', vary: 'accept' });
    expect(out.body).toEqual({
      firewall: { defaults: { input: 'ACCEPT', output: 'ACCEPT', forward: 'DROP' } },
      lan: { interfaces: ['eth1'], proto: 'static', ipaddr: '10.0.0.1', netmask: '255.255.255.0' },
      wan: { interface: 'eth0', proto: 'pppoe', username: 'me@isp', password: '[redacted]' },
      wifi: [{ id: 'pci-wifi-0', channel: 6 }],
      'wifi-interfaces': [{ device: 'pci-wifi-0', ssid: 'home', encryption: 'psk2', key: '[redacted]' }],
      x_vendor: 'kept',
    });
    expect(out.text).not.toContain('hunter2hunter2');
    expect(out.text).not.toContain('pppoe-secret');
  });

  it('responds with YAML when Accept asks for it', async () => {
    const out = await get<HostConfiguration>(configDevice(routerHardware, { stored: STORED }), 'application/yaml');
    expect(out.headers['content-type']).toBe('application/yaml');
    expect(out.body.wan?.password).toBe('[redacted]');
    expect(out.body.firewall.defaults.forward).toBe('DROP');
  });

  it('responds with what is stored now, in the media type asked now, whatever it answered before', async () => {
    const json = await get<HostConfiguration>(configDevice(routerHardware, { stored: STORED }));
    const yaml = await get(configDevice(routerHardware, { stored: STORED }), 'application/yaml');
    const changed = await get<HostConfiguration>(configDevice(routerHardware, { stored: STORED.replace('forward: DROP', 'forward: REJECT') }));
    expect([json.headers['content-type'], yaml.headers['content-type'], changed.headers['content-type']]).toEqual([
      'application/json',
      'application/yaml',
      'application/json',
    ]);
    expect([json.body.firewall.defaults.forward, changed.body.firewall.defaults.forward]).toEqual(['DROP', 'REJECT']);
  });

  it('responds with the configuration generated from the hardware while none is stored', async () => {
    const device = configDevice(routerHardware);
    const { status, body } = await get(device);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      lan: { interfaces: ['eth1', 'eth2', 'eth10'], ipaddr: '192.168.1.1' },
      wan: { interface: 'eth0', proto: 'dhcp' },
      wifi: [
        { id: 'pci-wifi-0', channel: 36 },
        { id: 'pci-wifi-1', channel: 1 },
      ],
    });
    expect(await device.hostConfig.read()).toBeNull();
  });

  it('responds with 500, without details, when the stored configuration is damaged', async () => {
    const out = await get(configDevice(routerHardware, { stored: 'lan: [1\n' }));
    expect(out.status).toBe(500);
    expect(out.text).not.toContain('YAML');
  });
});
