import { describe, expect, it } from 'vitest';
import { configDevice, routerHardware } from '../../test/support/config-devices.ts';
import { callFunction, okBody } from '../../test/support/call-function.ts';
import * as pdconf from './pdconf.get.ts';
import * as reload from './pdconf.put.ts';
import type { PdconfStatus } from './schemas.ts';

describe('PUT /api/v1/config/pdconf', () => {
  it('responds with 200 and the status after applying every file, and GET then shows the age in reloads since', async () => {
    const device = configDevice(routerHardware);
    const { status, body: sections } = await callFunction<PdconfStatus>(reload, device);
    expect(status).toBe(200);
    expect(new Set(sections.map((section: { comment: string }) => section.comment.replace(/^\w+: /, '')))).toEqual(new Set(['applied (emulated)']));
    expect(sections.every((section: { success: boolean; age: number }) => section.success && section.age === 0)).toBe(true);
    expect((await okBody(pdconf, device))[0]).toEqual({
      type: 'interface',
      name: 'loopback',
      comment: 'network: applied (emulated)',
      success: true,
      age: 0,
    });
    await device.hostConfig.refresh();
    const later = await okBody(pdconf, device);
    expect(later[0]).toEqual({ type: 'interface', name: 'loopback', comment: 'network: applied (emulated)', success: true, age: 1 });
  });

  it('reports a file whose apply failed, per section', async () => {
    const device = configDevice(routerHardware, {
      apply: async (file) => (file === 'wireless' ? { success: false, comment: 'apply failed: wifi reload exited with code 1: radio busy' } : null),
    });
    const sections = (await okBody(reload, device)) as { type: string; comment: string; success: boolean }[];
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
