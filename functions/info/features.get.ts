import { defineRoute } from '../core/route.ts';
import { deepFreeze } from '../core/deep-freeze.ts';
import type { Handler } from '../core/handler.ts';
import type { Device } from '../core/device/index.ts';
import { canBuildChuteNetworks } from './features.ts';
import { FeatureListSchema, type FeatureList, NoInputSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/info/features', 'Feature strings the daemon supports');
export const request = NoInputSchema;
export const response = FeatureListSchema;

/**
 * `hostapd-control` always; `docker` when the device has a reachable container engine; after it
 * `chute-networks` when the device also has the programs that build a chute's networks
 * (`canBuildChuteNetworks`). Without an engine the programs are not asked for. Last, `audio` where
 * the device's audio server answers `pactl info`. The answers are
 * constants, frozen: a request allocates no list.
 *
 * @example
 * await handle(input, device) // ['hostapd-control', 'docker', 'chute-networks']
 */
export const handle: Handler<FeatureList> = async (_input, device) => {
  const features = await engineFeatures(device);
  return (await device.audio.pactl('info')) === null ? features : (WITH_AUDIO.get(features) ?? features);
};

/** The features of the engine and the chute networks. */
async function engineFeatures(device: Device): Promise<FeatureList> {
  if ((await device.containers()) === null) return BASE;
  return canBuildChuteNetworks(await device.programs()) ? WITH_CHUTE_NETWORKS : WITH_DOCKER;
}

const BASE: FeatureList = deepFreeze(['hostapd-control']);
const WITH_DOCKER: FeatureList = deepFreeze(['hostapd-control', 'docker']);
const WITH_CHUTE_NETWORKS: FeatureList = deepFreeze(['hostapd-control', 'docker', 'chute-networks']);
/** Each list with `audio` last, for a device whose audio server answers (`pactl info`). */
const WITH_AUDIO = new Map([BASE, WITH_DOCKER, WITH_CHUTE_NETWORKS].map((list) => [list, deepFreeze([...list, 'audio'])]));
