import { negotiate } from '../core/body/index.ts';
import type { Handler, Reply } from '../core/handler.ts';
import { defineRoute } from '../core/route.ts';
import { hardwareFacts } from './host-config.ts';
import { generatedAnswer } from './host-config-answer.ts';
import { HostConfigurationSchema, NoInputSchema } from './schemas.ts';

// ParaDrop's sample request and pdtools write the path with `_`.
export const route = defineRoute('GET /api/v1/config/new-config', 'A host configuration generated from the hardware', {
  aliases: ['/api/v1/config/new_config'],
  answer: 'document',
});
export const request = NoInputSchema;
export const response = HostConfigurationSchema;

/**
 * A host configuration generated from the detected hardware (see `generateHostConfig`): one wifi
 * entry per radio, the first Ethernet interface as WAN, the others bridged as LAN. Changes nothing;
 * JSON, or YAML when `Accept` asks for it. Its alias `/api/v1/config/new_config` answers the same.
 *
 * @example
 * await handle(input, device) // reply('{"firewall":…,"lan":{"interfaces":["eth1"],…},"wan":{"interface":"eth0","proto":"dhcp"},"wifi":[…],…}', 'application/json', …)
 */
export const handle: Handler<Reply> = async (input, device) => generatedAnswer(device, await hardwareFacts(device), negotiate(input.headers.accept));
