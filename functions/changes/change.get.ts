import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { HttpProblem } from '../core/problem.ts';
import { pathParams } from '../chutes/params.ts';
import { ChangeRecordSchema, type ChangeRecord, ChangeRequestSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/changes/:id', 'One change to a chute, to follow it');
export const request = ChangeRequestSchema;
export const response = ChangeRecordSchema;

/**
 * One change by its id (the `change_id` a chute call answered): poll it until its state is
 * `succeeded` or `failed`. ParaDrop has no such endpoint: its change list shows only the changes
 * still queued or running, in fields of its own, and its clients follow a change over a websocket.
 *
 * @throws HttpProblem 400 naming params.id when the id is not a whole number, 404 when no change has it.
 * @example
 * await handle({ …, params: { id: '3' } }, device) // { id: 3, action: 'start', chute: 'hello', state: 'running', … }
 */
export const handle: Handler<ChangeRecord> = async (input, device) => {
  const { id } = pathParams(input, ['id']);
  const change = await device.change(Number(id));
  if (change === null) throw new HttpProblem(404, `there is no change with id ${id}`);
  return change;
};
