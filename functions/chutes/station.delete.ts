import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/invoke.ts';
import { HttpProblem } from '../core/problem.ts';
import { servingNetwork } from './lookup.ts';
import { pathParams } from './params.ts';
import { MessageSchema, type Message, StationRequestSchema } from './schemas.ts';

export const route = defineRoute({
  method: 'DELETE',
  path: '/api/v1/chutes/:chute/networks/:network/stations/:mac',
  summary: 'Disconnect a station from an access point',
});
export const request = StationRequestSchema;
export const response = MessageSchema;

/**
 * `iw dev <host interface> station del <mac>`, as ParaDrop does: the station is disconnected (it may
 * connect again).
 *
 * @throws HttpProblem 400 for a malformed MAC address, 404 when no such station is connected.
 * @example
 * await handle(input, device) // { message: 'station 5c:f7:e6:1c:36:f7 was disconnected from network wlan of chute hello' }
 */
export const handle: Handler<Message> = async (input, device) => {
  const params = pathParams(input, ['chute', 'network', 'mac']);
  const network = await servingNetwork(device, params, ['access-point'], 'disconnect a station');
  if (!(await device.network(network.target).stationDel(params.mac))) {
    throw new HttpProblem(404, `no station ${params.mac} is connected to network ${network.name}`);
  }
  return { message: `station ${params.mac} was disconnected from network ${network.name} of chute ${network.chute}` };
};
