import { negotiate } from '../core/body/index.ts';
import type { Handler, Reply } from '../core/handler.ts';
import { defineRoute } from '../core/route.ts';
import { hardwareFacts } from './host-config.ts';
import { generatedAnswer, storedAnswer } from './host-config-answer.ts';
import { HostConfigurationSchema, NoInputSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/config/hostconfig', 'The host configuration, as JSON or YAML', { answer: 'document' });
export const request = NoInputSchema;
export const response = HostConfigurationSchema;

/**
 * The stored host configuration, or the one generated from the hardware while none is stored (a fresh
 * install, after a factory reset), secrets `[redacted]`: JSON, or YAML when `Accept` asks for it.
 *
 * @example
 * await handle(input, device) // reply('{"firewall":{"defaults":{"input":"ACCEPT",…}},"lan":{…},…}', 'application/json', { vary: 'accept' })
 */
export const handle: Handler<Reply> = async (input, device) => {
  const type = negotiate(input.headers.accept);
  const stored = await device.hostConfig.read();
  return stored === null ? generatedAnswer(device, await hardwareFacts(device), type) : storedAnswer(device, stored, type);
};
