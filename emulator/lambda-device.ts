import type { Device } from '../functions/core/device/index.ts';
import { parseControllerUrl, parseMilliseconds } from './options.ts';
import type { ScenarioOptions } from './scenario/core.ts';
import { loadScenario, SCENARIO_ENV } from './scenario/device.ts';

/**
 * The device of a function bundle outside a router (AWS Lambda): the scenario named by
 * `CHUTEBOX_SCENARIO` (default `default`), its changes taking `CHUTEBOX_CHANGE_DELAY` ms per step and
 * its provisioning talking to `CHUTEBOX_CONTROLLER` (default the built-in fake controller), as
 * `chutebox emulate` takes them. Built as `dist/scenario-device.mjs`, which the Lambda
 * adapter (functions/core/lambda.ts) imports at run time, so no function bundle carries the scenario
 * loader or its YAML parser.
 *
 * @example
 * // CHUTEBOX_SCENARIO=gl-ar150
 * const device = await createDevice();
 */
export async function createDevice(): Promise<Device> {
  const scenario = await loadScenario(process.env[SCENARIO_ENV] || 'default', undefined, scenarioEnvironment(process.env));
  return scenario.device;
}

/** The options of `CHUTEBOX_CHANGE_DELAY` and `CHUTEBOX_CONTROLLER`, each when set: a device on Lambda's, one or a fleet's. */
export function scenarioEnvironment(env: NodeJS.ProcessEnv): Pick<ScenarioOptions, 'changeDelayMs' | 'controller'> {
  const { CHUTEBOX_CHANGE_DELAY: delay, CHUTEBOX_CONTROLLER: controller } = env;
  return {
    ...(delay ? { changeDelayMs: fromEnvironment('CHUTEBOX_CHANGE_DELAY', () => parseMilliseconds(delay, 'change-delay')) } : {}),
    ...(controller ? { controller: fromEnvironment('CHUTEBOX_CONTROLLER', () => parseControllerUrl(controller)) } : {}),
  };
}

/** A value read from an environment variable; an error names the variable. */
export function fromEnvironment<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}`);
  }
}
