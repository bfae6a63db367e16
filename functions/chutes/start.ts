import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/invoke.ts';
import { ChangeAccepted, ChuteStartRequest } from './schemas.ts';
import { startChange } from './start-change.ts';

export const route = defineRoute({ name: 'chutes-start', method: 'POST', path: '/api/v1/chutes/:chute/start', summary: "Start a chute's container (a change)" });
export const request = ChuteStartRequest;
export const response = ChangeAccepted;

/**
 * Queues a `start` change: the chute's container starts, created from its record and configuration
 * when it has none; `environment` in the body is added to the configured variables for this start.
 *
 * @throws HttpProblem 400 for a bad chute name, 404 for a chute that is not installed, 422 for a bad body.
 * @example
 * await handle({ …, params: { chute: 'hello' }, body: { environment: { MODE: 'demo' } } }, device) // { change_id: 3 }
 */
export const handle: Handler<ChangeAccepted> = (input, device) => startChange(input, device, 'start');
