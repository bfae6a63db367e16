import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { findNetwork, networkSummary } from '../chutes/lookup.ts';
import { pathParams } from '../chutes/params.ts';
import { NetworkRequestSchema, NetworkSummarySchema, type NetworkSummary } from '../chutes/schemas.ts';

export const route = defineRoute('GET /api/v1/chutes/:chute/networks/:network', 'One network of a chute');
export const request = NetworkRequestSchema;
export const response = NetworkSummarySchema;

/**
 * One entry of the chute configuration's `net`.
 *
 * @example
 * await handle(input, device) // { name: 'wlan', type: 'wifi', interface: 'wlan0' }
 */
export const handle: Handler<NetworkSummary> = async (input, device) => {
  return networkSummary(await findNetwork(device, pathParams(input, ['chute', 'network'])));
};
