import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { connectedStations } from './connected-stations.ts';
import { requestedNetwork } from '../chutes/lookup.ts';
import { NetworkRequestSchema, StationListSchema, type StationList } from '../chutes/schemas.ts';

export const route = defineRoute('GET /api/v1/chutes/:chute/networks/:network/stations', 'The stations connected to an access point');
export const request = NetworkRequestSchema;
export const response = StationListSchema;

/**
 * `iw dev <host interface> station dump`, one record per station; where iw cannot answer (a lab
 * link, no nl80211), hostapd's `all_sta` in the same shape (see connected-stations.ts).
 *
 * @example
 * await handle(input, device) // [{ mac_addr: '5c:f7:e6:1c:36:f7', signal: '-63 [-86, -63] dBm', tx_bitrate: '702.0 MBit/s VHT-MCS 8 80MHz VHT-NSS 2', … }]
 */
export const handle: Handler<StationList> = async (input, device) => {
  const network = await requestedNetwork(input, device, ['access-point'], 'list stations');
  return connectedStations(device, device.network(network.target));
};
