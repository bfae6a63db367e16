import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/invoke.ts';
import { ChangeListSchema, type ChangeList, ChangeListRequestSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/changes', 'Every change to a chute, oldest first');
export const request = ChangeListRequestSchema;
export const response = ChangeListSchema;

/**
 * Every change the device knows (queued by a chute call, PUT hostconfig or POST /api/v1/changes/), oldest first,
 * each with its state and timestamped messages. `/api/v1/changes/` answers the same.
 *
 * @example
 * await handle(input, device) // [{ id: 1, action: 'stop', chute: 'hello', state: 'succeeded', created: '…', updated: '…', messages: [{ time: '…', text: '…' }, …] }]
 */
export const handle: Handler<ChangeList> = async (_input, device) => device.changes();
