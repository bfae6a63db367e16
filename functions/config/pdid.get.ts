import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { PdidSchema, type Pdid, ProvisionStatusRequestSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/config/pdid', 'The device identifier (pdid)');
export const request = ProvisionStatusRequestSchema;
export const response = PdidSchema;

/**
 * The pdid: the `routerId` the device was provisioned with, or `''` before provisioning (the seed's
 * pdid is a string, and ParaDrop answers `''` too).
 *
 * @example
 * await handle(input, device) // { pdid: '5c3f2e8a…' }
 */
export const handle: Handler<Pdid> = async (_input, device) => ({ pdid: (await device.provisioning.status()).routerId ?? '' });
