import { defineRoute } from '../core/route.ts';
import { type DocumentMediaType, encodeDocument, negotiate } from '../core/body/index.ts';
import type { StoredChute } from '../core/device/index.ts';
import { reusingLast } from '../core/reusing-last.ts';
import { reply, type Handler, type Reply } from '../core/handler.ts';
import { loadChute } from './lookup.ts';
import { pathParams } from './params.ts';
import { redactDocument } from '../config/secret-placeholders.ts';
import { ChuteRequestSchema, StoredChuteConfigSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/chutes/:chute/config', 'The chute configuration, as JSON or YAML', { answer: 'document' });
export const request = ChuteRequestSchema;
export const response = StoredChuteConfigSchema;

/**
 * The chute configuration as stored (`service.yaml`), every field kept except that secrets read
 * `[redacted]` (a Wi-Fi `key`, `acct_secret`, secret-looking environment variables: see
 * `redactDocument`), as no GET shows a secret: JSON, or YAML when the
 * `Accept` header prefers `application/yaml`, `application/x-yaml` or `text/yaml` (q-values
 * respected), answered under the type it asked for (see `negotiate`, `encodeDocument`). The answer
 * varies with `Accept`.
 *
 * @example
 * await handle({ …, headers: { accept: 'application/yaml' } }, device)
 * // reply('environment:\n  GREETING: Hello from a chute\nweb:\n  port: 8000\n…', 'application/yaml', { vary: 'accept' })
 */
export const handle: Handler<Reply> = async (input, device) => {
  const { chute } = pathParams(input, ['chute']);
  const { config } = await loadChute(device, chute);
  return configAnswer(device, config, negotiate(input.headers.accept));
};

/** The answer for a chute's configuration, made again only for another configuration (a stored chute's is frozen) or media type. */
const configAnswer = reusingLast((config: StoredChute['config'], type: DocumentMediaType) => {
  const { body, contentType } = encodeDocument(redactDocument(config), type);
  return reply(body, contentType, { vary: 'accept' });
});
