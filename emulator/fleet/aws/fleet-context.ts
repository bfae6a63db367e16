import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../../runtime/options.ts';
import { MANIFEST_FILE } from '../../../runtime/http/mount-functions.ts';
import { parseControllerUrl, parseMilliseconds, parseSeed } from '../../options.ts';
import { DEFAULT_SEED } from '../../seeded.ts';
import { fleetShares } from '../members.ts';
import { FLEET_RUNTIMES, type FleetBundle, type FleetRuntime, type FleetStackProps } from './fleet-stack.ts';

/**
 * The fleet's stack as `cdk deploy -c key=value …` describes it (docs/bundles.md#deploying-a-fleet-on-aws):
 * each value checked, a bad one named by its key before anything is made.
 */

/** What the build put in the package root that the functions' code comes from. */
export interface FleetPackage {
  root: string;
  /** The endpoint bundles of `dist/manifest.json`. */
  bundles: FleetBundle[];
  /** The built-in scenarios compiled in `dist/scenarios/`. */
  scenarios: string[];
}

/** A context value as the CDK gives it: a string from `-c`, any JSON value from a `cdk.json`. */
export type ContextOf = (key: string) => unknown;

/** The stack's name when `-c stack` gives none. */
export const DEFAULT_STACK = 'ChuteboxFleet';

/** Devices a fleet may have: `memberById` reads indexes of at most nine digits. */
const MAX_FLEET = 1_000_000_000;

/** Shards at most: each is a schedule, and a stack holds at most 500 resources. */
const MAX_SHARDS = 100;

/**
 * Reads the built package at `root`.
 *
 * @throws UsageError when `dist/` is not built there.
 */
export function readFleetPackage(root: string): FleetPackage {
  const dist = path.join(root, 'dist');
  let manifest: { functions: FleetBundle[] };
  let compiled: string[];
  try {
    manifest = JSON.parse(readFileSync(path.join(dist, MANIFEST_FILE), 'utf8'));
    compiled = readdirSync(path.join(dist, 'scenarios'));
  } catch (error) {
    throw new UsageError(`the fleet's functions are dist/ of ${root}, which is not built (npm run build): ${(error as Error).message}`);
  }
  const bundles = manifest.functions.map(({ name, method, path: routePath, aliases }) => ({ name, method, path: routePath, ...(aliases ? { aliases } : {}) }));
  const scenarios = compiled.filter((file) => file.endsWith('.json')).map((file) => file.slice(0, -'.json'.length));
  return { root, bundles, scenarios: scenarios.sort() };
}

/**
 * The stack's name and props from the CDK context: `fleet` (required), `seed`, `scenarios`
 * (`default=0.7,gl-ar150=0.3`), `shards`, `controller`, `change-delay`, `domain`, `certificate`,
 * `runtime`, `memory`, `timeout`, `stack`.
 *
 * @throws UsageError naming the key of a bad or missing value.
 */
export function fleetStackProps(context: ContextOf, built: FleetPackage): { stackName: string; props: FleetStackProps } {
  const read = <T>(key: string, parse: (text: string) => T): T | undefined => {
    const value = context(key);
    if (value === undefined || value === null) return undefined;
    try {
      return parse(String(value));
    } catch (error) {
      throw new UsageError(`-c ${key}: ${(error as Error).message}`);
    }
  };
  const size = read('fleet', wholeNumber(1, MAX_FLEET));
  if (size === undefined) throw new UsageError('-c fleet: the number of devices is missing (e.g. -c fleet=10000)');
  const domainName = read('domain', dnsName);
  const certificateArn = read('certificate', certificate);
  if (certificateArn !== undefined && domainName === undefined) throw new UsageError('-c certificate: a certificate is for a -c domain, and none is given');
  const props: FleetStackProps = {
    packageRoot: built.root,
    bundles: built.bundles,
    fleet: {
      size,
      seed: read('seed', parseSeed) ?? DEFAULT_SEED,
      scenarios: read('scenarios', (text) => fleetShares(text, built.scenarios)) ?? [{ scenario: 'default', share: 1 }],
    },
    shards: read('shards', wholeNumber(1, Math.min(MAX_SHARDS, size))) ?? 1,
    controller: read('controller', parseControllerUrl),
    changeDelayMs: read('change-delay', (text) => parseMilliseconds(text, 'change-delay')),
    domain: domainName === undefined ? undefined : { name: domainName, certificateArn },
    runtime: read('runtime', runtime),
    // Lambda's bounds of memory; API Gateway waits at most 30 s for a function.
    memoryMb: read('memory', wholeNumber(128, 10_240)),
    timeoutSeconds: read('timeout', wholeNumber(1, 30)),
  };
  return { stackName: read('stack', stackName) ?? DEFAULT_STACK, props };
}

function wholeNumber(min: number, max: number): (text: string) => number {
  return (text) => {
    const value = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
    if (!(value >= min && value <= max)) throw new Error(`must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
    return value;
  };
}

function runtime(text: string): FleetRuntime {
  if (!Object.hasOwn(FLEET_RUNTIMES, text)) throw new Error(`must be one of ${Object.keys(FLEET_RUNTIMES).join(', ')}, not ${JSON.stringify(text)}`);
  return text as FleetRuntime;
}

function dnsName(text: string): string {
  const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
  if (text.length > 200 || !new RegExp(`^(?:${label}\\.)+${label}$`).test(text)) {
    throw new Error(`must be a domain name in lower case (fleet.example.com), not ${JSON.stringify(text)}`);
  }
  return text;
}

function certificate(text: string): string {
  if (!/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/.test(text))
    throw new Error(`must be the ARN of an ACM certificate, not ${JSON.stringify(text)}`);
  return text;
}

function stackName(text: string): string {
  if (!/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(text))
    throw new Error(`must be a CloudFormation stack name (a letter, then letters, digits and dashes), not ${JSON.stringify(text)}`);
  return text;
}
