import { redactDocument } from './secret-placeholders.ts';
import { encodeDocument, negotiate, type DocumentMediaType } from '../core/body/index.ts';
import { reply, type FunctionInput, type Reply } from '../core/invoke.ts';
import type { HostConfig } from './host-config.ts';

/**
 * A host configuration as GET answers it: secrets `[redacted]` (Wi-Fi keys, the PPPoE password: see
 * `redactDocument`), JSON, or YAML when the `Accept` header prefers it (see `negotiate`); the answer
 * varies with `Accept`. A frozen configuration (see `reusingLast`) is encoded once per media type.
 *
 * @example
 * answerHostConfig({ …, headers: { accept: 'application/yaml' } }, config) // reply('firewall:\n  defaults: …', 'application/yaml', { vary: 'accept' })
 */
export function answerHostConfig(input: FunctionInput, config: HostConfig): Reply {
  const type = negotiate(input.headers.accept);
  let answer = lastAnswers.get(type);
  if (answer?.config !== config) {
    answer = { config, ...encodeDocument(redactDocument(config), type) };
    if (Object.isFrozen(config)) lastAnswers.set(type, answer);
  }
  return reply(answer.body, answer.contentType, { vary: 'accept' });
}

/** The last frozen configuration answered in each media type, and its answer. */
const lastAnswers = new Map<DocumentMediaType, { config: HostConfig; body: string; contentType: string }>();
