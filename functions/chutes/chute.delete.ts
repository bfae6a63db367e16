import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { ChangeAcceptedSchema, type ChangeAccepted, ChuteRequestSchema } from './schemas.ts';
import { installedChute, submit } from './submit.ts';

export const route = defineRoute('DELETE /api/v1/chutes/:chute', 'Remove a chute: its container and its stored documents (a change)');
export const request = ChuteRequestSchema;
export const response = ChangeAcceptedSchema;

/**
 * Queues a `delete` change: the chute's container stops and is removed, then its stored documents;
 * once it has run, the chute reads 404.
 *
 * @throws HttpProblem 400 for a bad chute name, 404 for a chute that is not installed.
 * @example
 * await handle({ …, params: { chute: 'hello' } }, device) // { change_id: 6 }
 */
export const handle: Handler<ChangeAccepted> = async (input, device) => submit(device, { action: 'delete', chute: await installedChute(input, device) });
