import { reusingLast } from '../core/reusing-last.ts';
import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { HttpProblem } from '../core/problem.ts';
import { hostapdAnswer, parseHostapdReply } from '../parsers/hostapd.ts';
import { requestedNetwork } from '../chutes/lookup.ts';
import { HostapdStatusSchema, type HostapdStatus, NetworkRequestSchema } from '../chutes/schemas.ts';

export const route = defineRoute('GET /api/v1/chutes/:chute/networks/:network/hostapd_status', "The access point's low-level status (hostapd STATUS)");
export const request = NetworkRequestSchema;
export const response = HostapdStatusSchema;

/**
 * hostapd's `STATUS` of the access point, every `key=value` as strings (SSIDs as hostapd escapes them).
 *
 * @throws HttpProblem 502 when hostapd answers with no field (`FAIL`).
 * @example
 * await handle(input, device) // { state: 'ENABLED', channel: '36', 'bss[0]': 'wlan0', 'ssid[0]': 'lab', 'num_sta[0]': '3', … }
 */
export const handle: Handler<HostapdStatus> = async (input, device) => {
  const network = await requestedNetwork(input, device, ['access-point'], 'read the access point status');
  const reply = await device.network(network.target).hostapd(['STATUS']);
  const status = statusOf(device, reply);
  if (Object.keys(status).length === 0) {
    throw new HttpProblem(502, `hostapd answered STATUS for network ${network.name} with no field: ${hostapdAnswer(reply) || 'nothing'}`);
  }
  return status;
};

/** hostapd's STATUS reply as fields, parsed again only when the reply changed. */
const statusOf = reusingLast(parseHostapdReply);
