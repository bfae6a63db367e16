import { describe, expect, it } from 'vitest';
import { VLAN_CONFIG } from '../../test/support/info-devices.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { kernelTagsVlans } from './vlan.ts';

describe('kernelTagsVlans', () => {
  it('answers true for a kernel with 8021q loaded or built in: /proc/net/vlan/config, or /sys/module/8021q', async () => {
    expect(await kernelTagsVlans(memoryDevice({ files: { '/proc/net/vlan/config': VLAN_CONFIG } }))).toBe(true);
    expect(await kernelTagsVlans(memoryDevice({ files: { '/sys/module/8021q/version': '1.8\n' } }))).toBe(true);
  });

  it('answers true for a kernel that loads 8021q on the first VLAN: its module is installed for the running release', async () => {
    const installed = { '/lib/modules/6.1.0-18-amd64/kernel/net/8021q/8021q.ko': '' };
    expect(await kernelTagsVlans(memoryDevice({ uname: { release: '6.1.0-18-amd64' }, files: installed }))).toBe(true);
    expect(await kernelTagsVlans(memoryDevice({ uname: { release: '6.12.0' }, files: installed })), 'a module of another release').toBe(false);
  });

  it('answers false for a kernel without 8021q, which refuses `type vlan` with "Unknown device type"', async () => {
    expect(await kernelTagsVlans(memoryDevice({ uname: { release: '6.1.0' }, files: { '/proc/net/route': '' } }))).toBe(false);
  });
});
