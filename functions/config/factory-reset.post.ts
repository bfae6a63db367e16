import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { checkEmptyBody } from './empty-body.ts';
import { FactoryResetRequestSchema, FactoryResetResultSchema, type FactoryResetResult } from './schemas.ts';

export const route = defineRoute('POST /api/v1/config/factoryReset', 'Restore the device as freshly installed: no chutes, provisioning or credentials');
export const request = FactoryResetRequestSchema;
export const response = FactoryResetResultSchema;

/**
 * Resets the device and answers when it is done (as ParaDrop does), with `{ success, message }`. It
 * first waits for every queued change; changes asked for meanwhile get 409. The runtime's own
 * credentials are gone afterwards: like a fresh install, it then serves only clients on the device
 * itself until `chutebox passwd` sets a password.
 *
 * @throws HttpProblem 422 for a body other than none or `{}`, 409 while another reset runs.
 * @example
 * await handle({ …, body: undefined }, device) // { success: true, message: 'factory reset: …' }
 */
export const handle: Handler<FactoryResetResult> = async (input, device) => {
  checkEmptyBody(input.body, 'factoryReset');
  return device.factoryReset();
};
