import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { ProvisionStatusSchema, type ProvisionStatus, ProvisionStatusRequestSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/config/provision', 'Provision status of the device and of its telemetry to the controller');
export const request = ProvisionStatusRequestSchema;
export const response = ProvisionStatusSchema;

/**
 * Whether the device is provisioned, with which controller, whether the last exchange with it
 * worked, and how sending telemetry goes. Never the apitoken.
 *
 * @example
 * await handle(input, device)
 * // { provisioned: false, routerId: null, pdserver: null, wampRouter: null, httpConnected: false, wampConnected: false,
 * //   provisionedAt: null, telemetry: { enabled: false, interval: 60, lastSuccess: null, lastError: null, queued: 0, dropped: 0, delivered: 0, failed: 0 } }
 */
export const handle: Handler<ProvisionStatus> = async (_input, device) => device.provisioning.status();
