import { ChangeAcceptedSchema, type ChangeAccepted } from '../chutes/schemas.ts';
import { submit } from '../chutes/submit.ts';
import { decodeDocumentBody } from '../core/body/index.ts';
import type { Handler } from '../core/handler.ts';
import { defineRoute } from '../core/route.ts';
import { validate } from '../core/validate.ts';
import { DeviceChangeBodySchema } from './device-change-body.ts';
import { DeviceChangeRequestSchema } from './schemas.ts';

export const route = defineRoute('POST /api/v1/changes', 'Reboot or shut down the device, as `pdtools node reboot` and `shutdown` ask it (a change)', {
  body: 'document',
});
export const request = DeviceChangeRequestSchema;
export const response = ChangeAcceptedSchema;

/**
 * Queues a `reboot` or `shutdown` change of the device itself (`chute: null`, in the device's queue,
 * after a host configuration change queued before it), from ParaDrop's update body
 * `{"name": "__PARADROP__", "updateClass": "ROUTER", "updateType": "reboot"}`, JSON or YAML. Every
 * other update that ParaDrop's daemon takes here has an endpoint of its own in chutebox, which the
 * 422 names. The change runs the device's reboot or shutdown command; `/ws/changes/<id>/stream` and
 * `GET /api/v1/changes/<id>` follow it.
 *
 * @throws HttpProblem 400 for a malformed body, 413, 415, 422 naming `body.updateClass`,
 *   `body.updateType` or `body.name`, and 409 during a factory reset.
 * @example
 * await handle({ …, headers: { 'content-type': 'application/json' }, text: '{"name": "__PARADROP__", "updateClass": "ROUTER", "updateType": "reboot"}' }, device) // { change_id: 9 }
 */
export const handle: Handler<ChangeAccepted> = async (input, device) => {
  const { updateType } = validate(DeviceChangeBodySchema, decodeDocumentBody(input.headers['content-type'], input.text), 'body', 'the change request');
  return submit(device, { action: updateType });
};
