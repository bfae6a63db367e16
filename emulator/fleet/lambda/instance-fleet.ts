import type { FleetSpec } from '../members.ts';
import { loadFleetScenarios } from '../member-device.ts';
import { dynamoDeviceStore } from './device-store.ts';
import { fleetEnvironment } from './fleet-environment.ts';
import { fleetOrigin } from './fleet-origin.ts';
import type { LambdaFleet } from './served-member.ts';

/** The fleet as one Lambda instance serves it: its environment read, its scenarios and its start loaded once. */
export interface InstanceFleet extends LambdaFleet {
  spec: FleetSpec;
  domain: string | undefined;
}

let loading: Promise<InstanceFleet> | undefined;

/**
 * The fleet of this Lambda instance, from its environment (docs/bundles.md#a-fleet-on-lambda): loaded
 * on the first call, by the device module and the outbound handler alike; a load that failed is tried
 * again on the next call.
 *
 * @throws Error naming the variable of a missing or bad value.
 */
export function instanceFleet(): Promise<InstanceFleet> {
  loading ??= loadInstanceFleet().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function loadInstanceFleet(): Promise<InstanceFleet> {
  const environment = await fleetEnvironment(process.env);
  const store = dynamoDeviceStore({ table: environment.table, endpoint: environment.endpoint });
  const [scenarios, origin] = await Promise.all([loadFleetScenarios(environment.spec), fleetOrigin(store, Date.now())]);
  return { spec: environment.spec, domain: environment.domain, scenarios, store, origin, device: environment.device };
}
