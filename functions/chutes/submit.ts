import type { ChangeRequest, Device } from '../core/device.ts';
import type { FunctionInput } from '../core/invoke.ts';
import { loadChute } from './lookup.ts';
import { pathParams } from './params.ts';
import type { ChangeAccepted } from './schemas.ts';

/**
 * Queues a change and answers its id, as ParaDrop does (`{ change_id }`). The change runs in the
 * background; `GET /api/v1/changes/<id>` shows how it goes.
 *
 * @example
 * await submit(device, { action: 'stop', chute: 'hello' }) // { change_id: 7 }
 */
export async function submit(device: Device, request: ChangeRequest): Promise<ChangeAccepted> {
  const { id } = await device.submitChange(request);
  return { change_id: id };
}

/**
 * The chute a change is asked for: its name from the path, checked, of a chute that is installed.
 *
 * @throws HttpProblem 400 for a bad name, 404 when no chute has it.
 */
export async function installedChute(input: FunctionInput, device: Device): Promise<string> {
  const { chute } = pathParams(input, ['chute']);
  await loadChute(device, chute);
  return chute;
}
