import { defineRoute } from '../core/route.ts';
import { deepFreeze } from '../core/deep-freeze.ts';
import type { Handler } from '../core/handler.ts';
import { canBuildChuteNetworks } from './features.ts';
import { FeatureListSchema, type FeatureList, NoInputSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/info/features', 'Feature strings the daemon supports');
export const request = NoInputSchema;
export const response = FeatureListSchema;

/**
 * `hostapd-control` always; `docker` when the device has a reachable container engine; after it
 * `chute-networks` when the device also has the programs that build a chute's networks
 * (`canBuildChuteNetworks`). Without an engine the programs are not asked for. The answers are
 * constants, frozen: a request allocates no list.
 *
 * @example
 * await handle(input, device) // ['hostapd-control', 'docker', 'chute-networks']
 */
export const handle: Handler<FeatureList> = async (_input, device) => {
  if ((await device.containers()) === null) return BASE;
  return canBuildChuteNetworks(await device.programs()) ? WITH_CHUTE_NETWORKS : WITH_DOCKER;
};

const BASE: FeatureList = deepFreeze(['hostapd-control']);
const WITH_DOCKER: FeatureList = deepFreeze(['hostapd-control', 'docker']);
const WITH_CHUTE_NETWORKS: FeatureList = deepFreeze(['hostapd-control', 'docker', 'chute-networks']);
