import { fromEnvironment, scenarioEnvironment } from '../../lambda-device.ts';
import { parseSeed } from '../../options.ts';
import { DEFAULT_SEED } from '../../seeded.ts';
import type { ScenarioOptions } from '../../scenario/core.ts';
import { builtInScenarios } from '../../scenario/names.ts';
import { fleetShares, type FleetSpec } from '../members.ts';
import { FLEET_ENV } from './fleet-table.ts';

/** The most devices a fleet on Lambda may have: ids are `router-<index>` with at most nine digits. */
const MAX_FLEET = 1_000_000_000;

/** A fleet as its functions' environment describes it. */
export interface FleetEnvironment {
  /** The table of the devices' states. */
  table: string;
  spec: FleetSpec;
  domain: string | undefined;
  /** The DynamoDB endpoint, when not AWS's. */
  endpoint: string | undefined;
  /** What every device is served with: `CHUTEBOX_CHANGE_DELAY`, `CHUTEBOX_CONTROLLER`. */
  device: Pick<ScenarioOptions, 'changeDelayMs' | 'controller'>;
}

/**
 * Reads the fleet's environment; the seed is `DEFAULT_SEED`'s 1 when unset, as for `emulate`.
 *
 * @throws Error naming the variable of a missing or bad value.
 * @example
 * // CHUTEBOX_FLEET_TABLE=ChuteboxFleet-Devices CHUTEBOX_FLEET_SIZE=10000 CHUTEBOX_FLEET_SCENARIOS=default=0.7,gl-ar150=0.3
 * (await fleetEnvironment(process.env)).spec // { size: 10000, seed: 1, scenarios: [{ scenario: 'default', share: 0.7 }, …] }
 */
export async function fleetEnvironment(env: NodeJS.ProcessEnv): Promise<FleetEnvironment> {
  const table = env[FLEET_ENV.table];
  if (!table) throw new Error(`${FLEET_ENV.table}: the fleet's DynamoDB table is not named`);
  const sizeText = env[FLEET_ENV.size] ?? '';
  const size = fromEnvironment(FLEET_ENV.size, () => fleetSize(sizeText));
  const seedText = env[FLEET_ENV.seed];
  const seed = seedText ? fromEnvironment(FLEET_ENV.seed, () => parseSeed(seedText)) : DEFAULT_SEED;
  const sharesText = env[FLEET_ENV.scenarios];
  const known = await builtInScenarios();
  const scenarios = sharesText ? fromEnvironment(FLEET_ENV.scenarios, () => fleetShares(sharesText, known)) : [{ scenario: 'default', share: 1 }];
  return {
    table,
    spec: { size, seed, scenarios },
    domain: env[FLEET_ENV.domain] || undefined,
    endpoint: env[FLEET_ENV.endpoint] || undefined,
    device: scenarioEnvironment(env),
  };
}

function fleetSize(text: string): number {
  const size = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(size >= 1 && size <= MAX_FLEET)) throw new Error(`must be the number of devices, from 1 to ${MAX_FLEET}, not ${JSON.stringify(text)}`);
  return size;
}
