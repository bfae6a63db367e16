import { redactDocument } from './secret-placeholders.ts';
import { encodeDocument, negotiate } from '../core/body/index.ts';
import { reply, type FunctionInput, type Reply } from '../core/handler.ts';
import type { HostConfig } from './host-config.ts';

/**
 * A host configuration as GET answers it: secrets `[redacted]` (Wi-Fi keys, the PPPoE password: see
 * `redactDocument`), JSON, or YAML when the `Accept` header prefers it (see `negotiate`); the answer
 * varies with `Accept`.
 *
 * @example
 * answerHostConfig({ …, headers: { accept: 'application/yaml' } }, config) // reply('firewall:\n  defaults: …', 'application/yaml', { vary: 'accept' })
 */
export function answerHostConfig(input: FunctionInput, config: HostConfig): Reply {
  const { body, contentType } = encodeDocument(redactDocument(config), negotiate(input.headers.accept));
  return reply(body, contentType, { vary: 'accept' });
}
