import { redactDocument } from './secret-placeholders.ts';
import { type DocumentMediaType, encodeDocument } from '../core/body/index.ts';
import { reply, type Reply } from '../core/handler.ts';
import { reusingLast } from '../core/reusing-last.ts';
import { configFromFacts, type HostConfig, parseStoredHostConfig } from './host-config.ts';

/**
 * A host configuration as GET answers it: secrets `[redacted]` (Wi-Fi keys, the PPPoE password: see
 * `redactDocument`), in the media type negotiated from `Accept` (JSON or YAML, see `negotiate`); the
 * answer varies with `Accept`.
 *
 * @example
 * answerHostConfig(config, 'application/yaml') // reply('firewall:\n  defaults: …', 'application/yaml', { vary: 'accept' })
 */
export function answerHostConfig(config: HostConfig, type: DocumentMediaType): Reply {
  const { body, contentType } = encodeDocument(redactDocument(config), type);
  return reply(body, contentType, { vary: 'accept' });
}

/** The answer for the stored configuration's text (`hostconfig.yaml`), made again only when the text or the media type changed. */
export const storedAnswer = reusingLast((text: string, type: DocumentMediaType) => answerHostConfig(parseStoredHostConfig(text), type));

/** The answer for the generated configuration (its `hardwareFacts`), made again only when the hardware or the media type changed. */
export const generatedAnswer = reusingLast((facts: string, type: DocumentMediaType) => answerHostConfig(configFromFacts(facts), type));
