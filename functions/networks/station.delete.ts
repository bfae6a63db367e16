import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { HttpProblem } from '../core/problem.ts';
import { disconnectStation } from './connected-stations.ts';
import { requestedStation } from '../chutes/lookup.ts';
import { MessageSchema, type Message, StationRequestSchema } from '../chutes/schemas.ts';

export const route = defineRoute('DELETE /api/v1/chutes/:chute/networks/:network/stations/:mac', 'Disconnect a station from an access point');
export const request = StationRequestSchema;
export const response = MessageSchema;

/**
 * `iw dev <host interface> station del <mac>`, as ParaDrop does, or where iw cannot answer, hostapd's
 * `DEAUTHENTICATE <mac>` (see connected-stations.ts): the station is disconnected (it may connect
 * again).
 *
 * @throws HttpProblem 400 for a malformed MAC address, 404 when no such station is connected.
 * @example
 * await handle(input, device) // { message: 'station 5c:f7:e6:1c:36:f7 was disconnected from network wlan of chute hello' }
 */
export const handle: Handler<Message> = async (input, device) => {
  const { network, mac } = await requestedStation(input, device, 'disconnect a station');
  if (!(await disconnectStation(device, device.network(network.target), mac))) {
    throw new HttpProblem(404, `no station ${mac} is connected to network ${network.name}`);
  }
  return { message: `station ${mac} was disconnected from network ${network.name} of chute ${network.chute}` };
};
