import { defineRoute } from '../core/route.ts';
import { decodeDocumentBody } from '../core/body/index.ts';
import type { Handler } from '../core/handler.ts';
import { checkChuteConfig } from './chute-config.ts';
import { checkEditedConfig } from './edited-config.ts';
import { loadChute } from './lookup.ts';
import { pathParams } from './params.ts';
import { ChangeAcceptedSchema, type ChangeAccepted, ChuteConfigUpdateRequestSchema } from './schemas.ts';
import { submit } from './submit.ts';

export const route = defineRoute(
  'PUT /api/v1/chutes/:chute/config',
  'Replace the chute configuration, as JSON or YAML, and recreate its container (a change)',
  { body: 'document' },
);
export const request = ChuteConfigUpdateRequestSchema;
export const response = ChangeAcceptedSchema;

/**
 * Queues an `update-config` change with a new chute configuration, JSON or YAML (`application/yaml`,
 * `application/x-yaml`, `text/yaml`): a `service.yaml` as a developer wrote it is accepted unchanged.
 * A `[redacted]` placeholder where GET …/config hides a secret keeps the stored secret, so a client
 * can GET, edit and PUT back without knowing the Wi-Fi key: the change carries the placeholder, and
 * the secret is the one stored when the change runs (`resolvePlaceholders`), so it keeps a key that a
 * change queued before it set. Everything is checked before the change is queued, each placeholder
 * against the configuration stored now: on any 4xx nothing is stored and the chute is left as it is.
 * The change fails, with nothing applied, when a placeholder has no secret behind it any more when it
 * runs (a change in between removed that network).
 *
 * @throws HttpProblem 400 for a bad chute name or a malformed body, 404 for a chute that is not
 *   installed, 413, 415, and 422 listing every violation with its path (`body.net.wlan.ssid`), a
 *   placeholder with no stored secret behind it among them, and a network the device cannot give
 *   what it asks for (`body.net.wlan.ipv4_network`).
 * @example
 * await handle({ …, params: { chute: 'hello' }, headers: { 'content-type': 'application/yaml' }, text: 'web:\n  port: 8000\n' }, device) // { change_id: 9 }
 */
export const handle: Handler<ChangeAccepted> = async (input, device) => {
  const { chute } = pathParams(input, ['chute']);
  const stored = await loadChute(device, chute);
  const edited = decodeDocumentBody(input.headers['content-type'], input.text);
  checkEditedConfig(edited, stored.config, checkChuteConfig, 'the chute configuration', 'body');
  // The placeholders stay: the change resolves them against the configuration stored when it runs.
  return submit(device, { action: 'update-config', chute, config: edited });
};
