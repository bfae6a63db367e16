import { FLEET_TABLE_ENV } from '../../../functions/core/lambda.ts';

/**
 * The names a fleet on Lambda shares between its CDK stack (emulator/fleet/aws/fleet-stack.ts) and
 * its functions: the table's key and the functions' environment. Nothing here loads the AWS SDK or the CDK.
 */

/** The table's partition key: a device's id (`router-<index>`), a string. */
export const TABLE_KEY = 'device';

/**
 * The environment of a fleet's functions on Lambda, which the CDK stack sets
 * (emulator/fleet/aws/fleet-stack.ts) and every handler reads (docs/bundles.md#a-fleet-on-lambda).
 */
export const FLEET_ENV = {
  /** The DynamoDB table of the devices' states; its presence makes a function serve a fleet. */
  table: FLEET_TABLE_ENV,
  /** How many devices: `router-0` to `router-<size − 1>`. */
  size: 'CHUTEBOX_FLEET_SIZE',
  /** The fleet's seed, as `emulate --seed`. */
  seed: 'CHUTEBOX_SEED',
  /** The scenarios and their shares, `default=0.7,gl-ar150=0.3` (default `default`). */
  scenarios: 'CHUTEBOX_FLEET_SCENARIOS',
  /** Devices also answer by `Host: <id>.<domain>`. */
  domain: 'CHUTEBOX_FLEET_DOMAIN',
  /** Another DynamoDB endpoint than AWS's (dynalite in the tests). */
  endpoint: 'CHUTEBOX_DYNAMODB_ENDPOINT',
} as const;
