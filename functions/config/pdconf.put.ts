import type { Handler } from '../core/handler.ts';
import { defineRoute } from '../core/route.ts';
import { NoInputSchema, PdconfStatusSchema, type PdconfStatus } from './schemas.ts';

export const route = defineRoute('PUT /api/v1/config/pdconf', 'Render pdconf again and apply every file; answers the new status');
export const request = NoInputSchema;
export const response = PdconfStatusSchema;

/**
 * Renders every file again and applies each one with its configured command, whether it changed or
 * not, then answers the status as GET does. A file without an apply command reads `success: false`,
 * `<file>: rendered; no apply command is configured`; one whose command failed says why.
 *
 * @example
 * await handle(input, device) // [{ type: 'interface', name: 'loopback', comment: 'network: applied with …', success: true, age: 0 }, …]
 */
export const handle: Handler<PdconfStatus> = async (_input, device) => device.hostConfig.reloadPdconf();
