import type { DeviceRequest, DeviceSession } from '../../../functions/core/lambda.ts';
import { HttpProblem } from '../../../functions/core/problem.ts';
import { deviceAddress } from '../device-address.ts';
import { deviceId, memberById, type FleetSpec } from '../members.ts';
import { instanceFleet } from './instance-fleet.ts';
import { serveMember } from './served-member.ts';

/**
 * The device module of a fleet on Lambda (docs/bundles.md#a-fleet-on-lambda), built as
 * `dist/fleet-device.mjs`, which the Lambda adapter (functions/core/lambda.ts) imports when
 * `CHUTEBOX_FLEET_TABLE` is set: each request is served by the device its path (`/devices/<id>/…`)
 * or its `Host` (`<id>.<CHUTEBOX_FLEET_DOMAIN>`) names, built from the fleet's seed and restored from
 * the table (`serveMember`).
 */

/**
 * The device of the fleet a request names.
 *
 * @throws HttpProblem 404 when it names none of the fleet's devices.
 * @example
 * const session = await openDevice({ path: '/devices/router-42/api/v1/chutes', host: undefined, requestId });
 * session.path; // '/api/v1/chutes'
 */
export async function openDevice(request: DeviceRequest): Promise<DeviceSession> {
  const fleet = await instanceFleet();
  const address = deviceAddress(request.path, request.host, fleet.domain);
  const member = address === null ? null : memberById(fleet.spec, address.id);
  if (address === null || member === null) throw noDevice(fleet.spec, address?.id);
  return { path: address.path, serve: (use) => serveMember(fleet, member, request.requestId, use) };
}

/** The 404 of a request that names no device of the fleet, saying where its devices are. */
function noDevice(spec: FleetSpec, id: string | undefined): HttpProblem {
  const devices = `${deviceId(0)} to ${deviceId(spec.size - 1)}`;
  return id === undefined
    ? new HttpProblem(404, `a device of this fleet answers at /devices/<id>/api/v1/…, its ids ${devices}`)
    : new HttpProblem(404, `no device ${id} in this fleet of ${spec.size} (${devices})`);
}
