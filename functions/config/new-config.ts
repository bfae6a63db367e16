import type { Handler, Reply } from '../core/invoke.ts';
import { defineRoute } from '../core/route.ts';
import { generateHostConfig } from './host-config.ts';
import { answerHostConfig } from './host-config-answer.ts';
import { HostConfiguration, NoInput } from './schemas.ts';

export const route = defineRoute({ name: 'config-new-config', method: 'GET', path: '/api/v1/config/new-config', summary: 'A host configuration generated from the hardware' });
export const request = NoInput;
export const response = HostConfiguration;

/**
 * A host configuration generated from the detected hardware (see `generateHostConfig`): one wifi
 * entry per radio, the first Ethernet interface as WAN, the others bridged as LAN. Changes nothing;
 * JSON, or YAML when `Accept` asks for it. `/api/v1/config/new_config` answers the same.
 *
 * @example
 * await handle(input, device) // reply('{"firewall":…,"lan":{"interfaces":["eth1"],…},"wan":{"interface":"eth0","proto":"dhcp"},"wifi":[…],…}', 'application/json', …)
 */
export const handle: Handler<Reply> = async (input, device) => answerHostConfig(input, await generateHostConfig(device));
