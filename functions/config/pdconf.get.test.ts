import { describe, expect, it } from 'vitest';
import { configDevice, routerHardware } from '../../test/support/config-devices.ts';
import { callFunction } from '../../test/support/call-function.ts';
import * as pdconf from './pdconf.get.ts';
import type { PdconfStatus } from './schemas.ts';

describe('GET /api/v1/config/pdconf', () => {
  it('responds with 200 and every section of network, wireless, dhcp and firewall, rendered but not yet applied on a fresh device', async () => {
    const device = configDevice(routerHardware);
    const { status, body: sections } = await callFunction<PdconfStatus>(pdconf, device);
    expect(status).toBe(200);
    expect(sections.slice(0, 3)).toEqual([
      { type: 'interface', name: 'loopback', comment: 'network: rendered; not applied yet (PUT /api/v1/config/pdconf applies it)', success: false, age: 0 },
      { type: 'device', name: 'br_lan', comment: 'network: rendered; not applied yet (PUT /api/v1/config/pdconf applies it)', success: false, age: 0 },
      { type: 'interface', name: 'lan', comment: 'network: rendered; not applied yet (PUT /api/v1/config/pdconf applies it)', success: false, age: 0 },
    ]);
    expect(sections.map((section: { type: string; name: string }) => `${section.type} ${section.name}`)).toContain('wifi-device pci_wifi_1');
    expect([...device.hostConfig.rendered.keys()].sort()).toEqual(['dhcp', 'firewall', 'network', 'status.json', 'wireless']);
  });
});
