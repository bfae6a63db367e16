import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { validate } from '../core/validate.ts';
import { ProvisionBodySchema } from './provision-body.ts';
import { ProvisionRequestSchema, ProvisionStatusSchema, type ProvisionStatus } from './schemas.ts';

export const route = defineRoute('POST /api/v1/config/provision', 'Provision the device with credentials from a cloud controller');
export const request = ProvisionRequestSchema;
export const response = ProvisionStatusSchema;

/**
 * Checks the body (`ProvisionBodySchema`: routerId, apitoken, pdserver, wampRouter), then has the device
 * check the credentials with the controller at `pdserver` and store them; the pdid becomes `routerId`.
 * Posting again replaces the credentials, once the controller accepts the new ones. Answers the
 * provision status, as GET does (never the apitoken).
 *
 * @throws HttpProblem 422 naming every missing or bad field (nothing is sent to the controller), or
 *   naming `body.apitoken` / `body.routerId` when the controller refuses them (401/403, 404); 502 when
 *   the controller cannot be reached or answers nonsense; 504 when it does not answer in time. On
 *   any of these nothing is stored.
 * @example
 * await handle({ …, body: { routerId: 'r1', apitoken: 't0k3n', pdserver: 'https://paradrop.org', wampRouter: 'ws://paradrop.org:9086/ws' } }, device)
 * // { provisioned: true, routerId: 'r1', pdserver: 'https://paradrop.org', …, httpConnected: true, … }
 */
export const handle: Handler<ProvisionStatus> = async (input, device) => {
  const credentials = validate(ProvisionBodySchema, input.body);
  return device.provisioning.provision(credentials);
};
