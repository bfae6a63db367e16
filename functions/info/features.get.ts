import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/invoke.ts';
import { FeatureListSchema, type FeatureList, NoInputSchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/info/features', 'Feature strings the daemon supports');
export const request = NoInputSchema;
export const response = FeatureListSchema;

/**
 * `hostapd-control` always; `docker` when the device has a reachable container engine.
 *
 * @example
 * await handle(input, device) // ['hostapd-control', 'docker']
 */
export const handle: Handler<FeatureList> = async (_input, device) => {
  const features = ['hostapd-control'];
  if ((await device.containers()) !== null) features.push('docker');
  return features;
};
