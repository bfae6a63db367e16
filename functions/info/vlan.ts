import type { DeviceSources } from '../core/device/index.ts';

/**
 * Whether the kernel makes 802.1Q VLAN interfaces (`ip link add … type vlan`); one without answers
 * `Unknown device type`. Its 8021q code is loaded or built in when it lists VLANs in
 * `/proc/net/vlan/config` (made in every network namespace) or has `/sys/module/8021q`, and can be
 * loaded on the first VLAN when its module is installed (`/lib/modules/<release>/kernel/net/8021q/`).
 *
 * @example
 * await kernelTagsVlans(device) // true on OpenWrt (built in), false on a kernel without 8021q
 */
export async function kernelTagsVlans(device: DeviceSources): Promise<boolean> {
  const { release } = await device.uname();
  const [config, loaded, installed] = await Promise.all([
    device.readFile('/proc/net/vlan/config'),
    device.readDir('/sys/module/8021q'),
    device.readDir(`/lib/modules/${release}/kernel/net/8021q`),
  ]);
  return config !== null || loaded.length > 0 || installed.some((name) => name.startsWith('8021q.ko'));
}
