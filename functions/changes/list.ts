import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/invoke.ts';
import { ChangeList, ChangeListRequest } from './schemas.ts';

export const route = defineRoute({ name: 'changes-list', method: 'GET', path: '/api/v1/changes', summary: 'Every change to a chute, oldest first' });
export const request = ChangeListRequest;
export const response = ChangeList;

/**
 * Every change the device knows (queued by a chute call, PUT hostconfig or POST /api/v1/changes/), oldest first,
 * each with its state and timestamped messages. `/api/v1/changes/` answers the same.
 *
 * @example
 * await handle(input, device) // [{ id: 1, action: 'stop', chute: 'hello', state: 'succeeded', created: '…', updated: '…', messages: [{ time: '…', text: '…' }, …] }]
 */
export const handle: Handler<ChangeList> = async (_input, device) => device.changes();
