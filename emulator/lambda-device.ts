import type { Device } from '../functions/core/device.ts';
import { loadScenario, SCENARIO_ENV } from './scenario-device.ts';

/**
 * The device of a function bundle outside a router (AWS Lambda): the scenario named by
 * `CHUTEBOX_SCENARIO` (default `default`). Built as `dist/scenario-device.mjs`, which the Lambda
 * adapter (functions/core/lambda.ts) imports at run time, so no function bundle carries the scenario
 * loader or its YAML parser.
 *
 * @example
 * // CHUTEBOX_SCENARIO=gl-ar150
 * const device = await createDevice();
 */
export async function createDevice(): Promise<Device> {
  const scenario = await loadScenario(process.env[SCENARIO_ENV] || 'default');
  return scenario.device;
}
