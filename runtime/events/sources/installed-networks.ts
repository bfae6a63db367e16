import { chuteNetworks, type ChuteNetwork } from '../../../functions/chutes/lookup.ts';
import type { Device } from '../../../functions/core/device/index.ts';

/**
 * The networks of every installed chute, as their endpoints see them (`chuteNetworks`): a chute that
 * cannot be read now (being written, half removed) is left out until the next look.
 *
 * @example
 * await installedNetworks(chutes) // [{ chute: 'hello', name: 'wifi', kind: 'access-point', target: { hostapdControl: '…/hostapd/vwlan5d1e', … } }]
 */
export async function installedNetworks(chutes: Pick<Device, 'chuteNames' | 'chute'>): Promise<ChuteNetwork[]> {
  const networks: ChuteNetwork[] = [];
  for (const name of await chutes.chuteNames()) {
    const chute = await chutes.chute(name).catch(() => null);
    if (chute !== null) networks.push(...chuteNetworks(chute));
  }
  return networks;
}
