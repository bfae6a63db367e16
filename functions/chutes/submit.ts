import type { ChangeRequest, Device } from '../core/device/index.ts';
import type { FunctionInput } from '../core/handler.ts';
import { nestedPath } from '../core/problem.ts';
import { placeViolations } from '../core/violations.ts';
import { mapping } from './chute-record.ts';
import { loadChute } from './lookup.ts';
import { networkChange, reserveChuteNetworks } from './network-reservations.ts';
import { pathParams } from './params.ts';
import type { ChangeAccepted } from './schemas.ts';

/**
 * Queues a change and answers its id, as ParaDrop does (`{ change_id }`). The change runs in the
 * background; `GET /api/v1/changes/<id>` shows how it goes. A change that sets a chute's
 * configuration (install, update, update-config) is refused first when its networks cannot have what
 * they ask for on this device now (`reserveChuteNetworks`); the change reserves them when it runs.
 * `configPath` says where a path of the chute configuration is in the request (default: the body
 * is the configuration).
 *
 * @throws HttpProblem 422 naming `<configPath>.net.<name>.ipv4_network`, `….vlan_id` or `….net.<name>`.
 * @example
 * await submit(device, { action: 'stop', chute: 'hello' }) // { change_id: 7 }
 * await submit(device, install, (path) => nestedPath('body.config', path)) // 422 naming body.config.net.wifi.vlan_id when VLAN 5 is taken
 */
export async function submit(device: Device, request: ChangeRequest, configPath = (path: string) => nestedPath('body', path)): Promise<ChangeAccepted> {
  if (
    (request.action === 'install' || request.action === 'update' || request.action === 'update-config') &&
    Object.keys(mapping(request.config.net)).length > 0
  ) {
    const stored = request.action === 'install' ? null : await device.chute(request.chute);
    await placeViolations(() => reserveChuteNetworks(device, networkChange(request.chute, request.config, stored)), configPath, 'the chute configuration');
  }
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
