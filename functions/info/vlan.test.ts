import { describe, expect, it } from 'vitest';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { kernelTagsVlans } from './vlan.ts';

/** What /proc/net/vlan/config holds with one VLAN, as the kernel prints it (net/8021q/vlanproc.c). */
const VLAN_CONFIG = 'VLAN Dev name\t | VLAN ID\nName-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD\nbr-lan.20      | 20  | br-lan\n';

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
