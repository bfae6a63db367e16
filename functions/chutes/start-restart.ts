import type { Device } from '../core/device/index.ts';
import type { FunctionInput } from '../core/handler.ts';
import { validate } from '../core/validate.ts';
import { ChuteStartBodySchema } from './chute-body.ts';
import type { ChangeAccepted } from './schemas.ts';
import { installedChute, submit } from './submit.ts';

/**
 * POST …/start and …/restart: checks the chute (400, 404), then the optional body
 * `{ environment }` (422), and only then queues the change. An environment replaces the chute's for
 * good, as ParaDrop does: the container is made again with it, and the record keeps it.
 *
 * @example
 * await startChange({ …, params: { chute: 'hello' }, body: { environment: { MODE: 'demo' } } }, device, 'restart') // { change_id: 8 }
 */
export async function startChange(input: FunctionInput, device: Device, action: 'start' | 'restart'): Promise<ChangeAccepted> {
  const chute = await installedChute(input, device);
  const environment = validate(ChuteStartBodySchema, input.body)?.environment;
  return submit(device, { action, chute, ...(environment === undefined ? {} : { environment }) });
}
