import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { ChangeAcceptedSchema, type ChangeAccepted, ChuteStartRequestSchema } from './schemas.ts';
import { startChange } from './start-restart.ts';

export const route = defineRoute('POST /api/v1/chutes/:chute/start', "Start a chute's container (a change)");
export const request = ChuteStartRequestSchema;
export const response = ChangeAcceptedSchema;

/**
 * Queues a `start` change: the chute's container starts, created from its record and configuration
 * when it has none; with `environment` in the body, the chute's environment (`GET /api/v1/chutes/<chute>` shows it) is replaced by it for good, as ParaDrop does, and the container is made again
 * with it.
 *
 * @throws HttpProblem 400 for a bad chute name, 404 for a chute that is not installed, 422 for a bad body.
 * @example
 * await handle({ …, params: { chute: 'hello' }, body: { environment: { MODE: 'demo' } } }, device) // { change_id: 3 }
 */
export const handle: Handler<ChangeAccepted> = (input, device) => startChange(input, device, 'start');
