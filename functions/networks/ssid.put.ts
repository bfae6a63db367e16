import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { HttpProblem } from '../core/problem.ts';
import { validate } from '../core/validate.ts';
import { hostapdAnswer } from '../parsers/hostapd.ts';
import { requestedNetwork } from '../chutes/lookup.ts';
import { SsidUpdateSchema } from './ssid-body.ts';
import { MessageSchema, type Message, SsidUpdateRequestSchema } from '../chutes/schemas.ts';

export const route = defineRoute('PUT /api/v1/chutes/:chute/networks/:network/ssid', 'Change the SSID of an access point until hostapd restarts');
export const request = SsidUpdateRequestSchema;
export const response = MessageSchema;

/**
 * Sets the SSID with hostapd's `SET ssid <ssid>`, then `RELOAD` so the access point beacons it, and
 * answers hostapd's `OK` as ParaDrop does (`{"message": "OK"}`, what its clients look for). The
 * change is not persistent, as in ParaDrop: hostapd's configuration file is untouched, and a chute
 * configuration update is the way to keep an SSID. An invalid body (422) sends nothing to hostapd.
 *
 * @throws HttpProblem 422 for a missing, empty, over-32-byte or control-character SSID; 502 when
 *   hostapd answers anything but OK.
 * @example
 * await handle({ …, body: { ssid: 'lab' } }, device) // { message: 'OK' }
 */
export const handle: Handler<Message> = async (input, device) => {
  const network = await requestedNetwork(input, device, ['access-point'], 'set the SSID');
  const { ssid } = validate(SsidUpdateSchema, input.body);
  const hostapd = device.network(network.target);
  for (const command of [['SET', 'ssid', ssid], ['RELOAD']]) {
    const answer = hostapdAnswer(await hostapd.hostapd(command));
    if (answer !== 'OK') {
      throw new HttpProblem(502, `hostapd refused ${command.slice(0, 2).join(' ')} for network ${network.name}: ${answer || 'no answer'}`);
    }
  }
  return { message: 'OK' };
};
