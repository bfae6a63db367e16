/**
 * What a network can serve, from its `type` and `mode` in the chute configuration:
 * - `access-point`: `type: wifi`, `mode: ap` (the default mode): stations, clients, SSID, hostapd;
 * - `monitor`: `type: wifi`, `mode: monitor`: nothing of the above (it has no clients);
 * - `vlan`: `type: vlan`: DHCP leases only;
 * - `other`: any other type or mode.
 */
export type NetworkKind = 'access-point' | 'monitor' | 'vlan' | 'other';

/**
 * The kind of a network of `type` and `mode` (null where none is configured). A module of its own,
 * so that the portal's script (runtime/http/portal-page/) tells access points as the API does.
 *
 * @example
 * networkKind('wifi', null) // 'access-point'
 * networkKind('wifi', 'monitor') // 'monitor'
 */
export function networkKind(type: string, mode: string | null): NetworkKind {
  if (type === 'vlan') return 'vlan';
  if (type !== 'wifi') return 'other';
  if (mode === null || mode === 'ap') return 'access-point';
  return mode === 'monitor' ? 'monitor' : 'other';
}
