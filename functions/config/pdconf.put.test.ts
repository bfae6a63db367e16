import { describe, expect, it } from 'vitest';
import { configDevice, routerHardware } from '../../test/support/config-devices.ts';
import { invoke } from '../core/invoke.ts';
import * as pdconf from './pdconf.get.ts';
import * as reload from './pdconf.put.ts';

const input = { params: {}, query: {}, headers: {}, body: undefined, text: '' };

describe('PUT /api/v1/config/pdconf', () => {
  it('responds with 200 and the status after applying every file, and GET then shows the age in reloads since', async () => {
    const device = configDevice(routerHardware);
    const out = await invoke(reload.handle, input, device);
    expect(out.status).toBe(200);
    const sections = JSON.parse(out.body);
    expect(reload.response.safeParse(sections).success).toBe(true);
    expect(new Set(sections.map((section: { comment: string }) => section.comment.replace(/^\w+: /, '')))).toEqual(new Set(['applied (emulated)']));
    expect(sections.every((section: { success: boolean; age: number }) => section.success && section.age === 0)).toBe(true);
    expect(JSON.parse((await invoke(pdconf.handle, input, device)).body)[0]).toEqual({
      type: 'interface',
      name: 'loopback',
      comment: 'network: applied (emulated)',
      success: true,
      age: 0,
    });
    await device.hostConfig.refresh();
    const later = JSON.parse((await invoke(pdconf.handle, input, device)).body);
    expect(later[0]).toEqual({ type: 'interface', name: 'loopback', comment: 'network: applied (emulated)', success: true, age: 1 });
  });

  it('reports a file whose apply failed, per section', async () => {
    const device = configDevice(routerHardware, {
      apply: async (file) => (file === 'wireless' ? { success: false, comment: 'apply failed: wifi reload exited with code 1: radio busy' } : null),
    });
    const sections = JSON.parse((await invoke(reload.handle, input, device)).body) as { type: string; comment: string; success: boolean }[];
    expect(sections.find((section) => section.type === 'wifi-device')).toMatchObject({
      comment: 'wireless: apply failed: wifi reload exited with code 1: radio busy',
      success: false,
    });
    expect(sections.find((section) => section.type === 'zone')).toMatchObject({
      comment: 'firewall: rendered; no apply command is configured',
      success: false,
    });
  });
});
