import { checkEditedConfig } from '../chutes/edited-config.ts';
import { ChangeAcceptedSchema, type ChangeAccepted } from '../chutes/schemas.ts';
import { submit } from '../chutes/submit.ts';
import { decodeDocumentBody } from '../core/body/index.ts';
import type { Handler } from '../core/handler.ts';
import { defineRoute } from '../core/route.ts';
import { currentHostConfig } from './host-config.ts';
import { checkHostConfig, unwrapHostConfig } from './host-config-body.ts';
import { HostConfigUpdateRequestSchema } from './schemas.ts';

export const route = defineRoute('PUT /api/v1/config/hostconfig', 'Replace the host configuration, as JSON or YAML, and apply it (a change)', {
  body: 'document',
});
export const request = HostConfigUpdateRequestSchema;
export const response = ChangeAcceptedSchema;

/**
 * Queues an `update-hostconfig` change with a new host configuration: the configuration itself or
 * ParaDrop's wrapper `{"config": {...}}`, JSON or YAML. A `[redacted]` placeholder where GET hides a
 * secret (a Wi-Fi key, the PPPoE password) keeps the secret in effect, so a client can GET, edit and
 * PUT back: the change carries the placeholder, and the secret is the one in effect when the change
 * runs (`resolvePlaceholders`), so it keeps a key that a change queued before it set. Everything is
 * checked before the change is queued, each placeholder against the configuration in effect now: on
 * any 4xx nothing is submitted. `GET /api/v1/changes/<change_id>` follows it; it fails, with nothing
 * applied, when a placeholder has no secret behind it any more when it runs, and when applying fails
 * the previous configuration is restored and the change fails.
 *
 * @throws HttpProblem 400 for a malformed body, 413, 415, and 422 listing every violation with its
 *   path in the body (`body.firewall.defaults.input`, `body.wifi[0].channel`; `body.config.…` in the
 *   wrapper), a placeholder with no secret behind it among them.
 * @example
 * await handle({ …, headers: { 'content-type': 'application/json' }, text: '{"config": {"firewall": …, "lan": …}}' }, device) // { change_id: 4 }
 */
export const handle: Handler<ChangeAccepted> = async (input, device) => {
  const { config: edited, at } = unwrapHostConfig(decodeDocumentBody(input.headers['content-type'], input.text));
  // A stored file that cannot be read has no secret to keep: a PUT without placeholders replaces it.
  const inEffect = await currentHostConfig(device).catch(() => ({}));
  checkEditedConfig(edited, inEffect, checkHostConfig, 'the host configuration', at);
  // The placeholders stay: the change resolves them against the configuration in effect when it runs.
  return submit(device, { action: 'update-hostconfig', config: edited });
};
