import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { HttpProblem } from '../core/problem.ts';
import { connectedStation } from './connected-stations.ts';
import { requestedStation } from '../chutes/lookup.ts';
import { StationRecordSchema, type StationRecord, StationRequestSchema } from '../chutes/schemas.ts';

export const route = defineRoute('GET /api/v1/chutes/:chute/networks/:network/stations/:mac', 'One station connected to an access point');
export const request = StationRequestSchema;
export const response = StationRecordSchema;

/**
 * `iw dev <host interface> station get <mac>`; where iw cannot answer, the station of hostapd's
 * `all_sta` (see connected-stations.ts).
 *
 * @throws HttpProblem 400 for a malformed MAC address, 404 when no such station is connected.
 * @example
 * await handle(input, device) // { mac_addr: '5c:f7:e6:1c:36:f7', inactive_time: '6530 ms', … }
 */
export const handle: Handler<StationRecord> = async (input, device) => {
  const { network, mac } = await requestedStation(input, device, 'read a station');
  const station = await connectedStation(device, device.network(network.target), mac);
  if (station === undefined) throw new HttpProblem(404, `no station ${mac} is connected to network ${network.name}`);
  return station;
};
