import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { ChangeAcceptedSchema, type ChangeAccepted, ChuteRequestSchema } from './schemas.ts';
import { installedChute, submit } from './submit.ts';

export const route = defineRoute('POST /api/v1/chutes/:chute/stop', "Stop a chute's container (a change)");
export const request = ChuteRequestSchema;
export const response = ChangeAcceptedSchema;

/**
 * Queues a `stop` change: the chute's container stops; the chute stays installed.
 *
 * @throws HttpProblem 400 for a bad chute name, 404 for a chute that is not installed.
 * @example
 * await handle({ …, params: { chute: 'hello' } }, device) // { change_id: 5 }
 */
export const handle: Handler<ChangeAccepted> = async (input, device) => submit(device, { action: 'stop', chute: await installedChute(input, device) });
