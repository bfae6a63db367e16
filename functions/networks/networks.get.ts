import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { chuteNetworks, loadChute, networkSummary } from '../chutes/lookup.ts';
import { pathParams } from '../chutes/params.ts';
import { ChuteRequestSchema, NetworkListSchema, type NetworkList } from '../chutes/schemas.ts';

export const route = defineRoute('GET /api/v1/chutes/:chute/networks', "The networks of a chute's configuration");
export const request = ChuteRequestSchema;
export const response = NetworkListSchema;

/**
 * The entries of the chute configuration's `net`, in order.
 *
 * @example
 * await handle(input, device) // [{ name: 'wlan', type: 'wifi', interface: 'wlan0' }, { name: 'guest', type: 'vlan', interface: 'eth1' }]
 */
export const handle: Handler<NetworkList> = async (input, device) => {
  const { chute } = pathParams(input, ['chute']);
  return chuteNetworks(await loadChute(device, chute)).map(networkSummary);
};
