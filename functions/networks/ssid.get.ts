import { reusingLast } from '../core/reusing-last.ts';
import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { HttpProblem } from '../core/problem.ts';
import { decodeSsid, parseHostapdReply } from '../parsers/hostapd.ts';
import { requestedNetwork } from '../chutes/lookup.ts';
import { NetworkRequestSchema, SsidRecordSchema, type SsidRecord } from '../chutes/schemas.ts';

export const route = defineRoute('GET /api/v1/chutes/:chute/networks/:network/ssid', 'The SSID and BSSID an access point broadcasts');
export const request = NetworkRequestSchema;
export const response = SsidRecordSchema;

/**
 * hostapd's `GET_CONFIG` of the access point: its `ssid` (decoded from hostapd's escapes) and `bssid`.
 *
 * @example
 * await handle(input, device) // { ssid: 'lab', bssid: '02:00:00:00:03:00' }
 */
export const handle: Handler<SsidRecord> = async (input, device) => {
  const network = await requestedNetwork(input, device, ['access-point'], 'read the SSID');
  const config = configOf(device, await device.network(network.target).hostapd(['GET_CONFIG']));
  if (config.ssid === undefined || config.bssid === undefined) {
    throw new HttpProblem(502, `hostapd's GET_CONFIG reply for network ${network.name} has no ${config.ssid === undefined ? 'ssid' : 'bssid'}`);
  }
  return { ssid: decodeSsid(config.ssid), bssid: config.bssid };
};

/** hostapd's GET_CONFIG reply as fields, parsed again only when the reply changed. */
const configOf = reusingLast(parseHostapdReply);
