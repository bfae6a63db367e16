import { draw } from '../seeded.ts';

/**
 * Who is in a fleet of emulated routers (docs/decisions/0055-a-fleet-of-emulated-routers.md): each
 * device is named by its index, and its seed and scenario are drawn from the fleet's seed and that
 * index, so that the same fleet seed gives the same devices in any process, after any restart, and on
 * any Lambda instance, without a list being kept.
 */

/** One scenario of a fleet and the share of the devices that run it. */
export interface FleetShare {
  /** A built-in scenario name, or a scenario folder. */
  scenario: string;
  /** Its share of the fleet, any positive weight (the shares need not add up to 1). */
  share: number;
}

/** A fleet: how many devices, the seed everything is drawn from, and the scenarios they run. */
export interface FleetSpec {
  size: number;
  seed: number;
  /** At least one; a device's scenario is drawn by the shares. */
  scenarios: readonly FleetShare[];
}

/** One device of a fleet. */
export interface FleetMember {
  /** Its place in the fleet, from 0. */
  index: number;
  /** `router-<index>`: what its URLs name (`/devices/<id>/api/v1/…`, `Host: <id>.<domain>`). */
  id: string;
  /** The scenario it runs. */
  scenario: string;
  /** Its own seed, from which its living network, its faults and its identity are drawn. */
  seed: number;
}

/** The prefix of every device id: an id is a DNS label, so that `Host: <id>.<domain>` can name it. */
const ID_PREFIX = 'router-';

/** The id of the device at `index`. */
export function deviceId(index: number): string {
  return `${ID_PREFIX}${index}`;
}

/**
 * The device at `index` of the fleet.
 *
 * @example
 * fleetMember({ size: 10, seed: 1, scenarios: [{ scenario: 'default', share: 1 }] }, 3).id; // 'router-3'
 */
export function fleetMember(spec: FleetSpec, index: number): FleetMember {
  return { index, id: deviceId(index), scenario: scenarioOf(spec, index), seed: Math.floor(draw(spec.seed, 'device', index) * 2 ** 53) };
}

/** The device that `id` names in the fleet; null for an id that is not one of its devices. */
export function memberById(spec: FleetSpec, id: string): FleetMember | null {
  if (!id.startsWith(ID_PREFIX)) return null;
  const digits = id.slice(ID_PREFIX.length);
  if (!/^(0|[1-9]\d{0,8})$/.test(digits)) return null;
  const index = Number(digits);
  return index < spec.size ? fleetMember(spec, index) : null;
}

/**
 * A fleet's scenarios and their shares, `name=share` separated by commas (`default=0.7,gl-ar150=0.3`),
 * as `CHUTEBOX_FLEET_SCENARIOS` gives them to the functions; each a built-in scenario of `known`.
 */
export function fleetShares(text: string, known: readonly string[]): FleetShare[] {
  const shares = text.split(',').map((part) => {
    const [scenario = '', share = '', ...rest] = part.split('=');
    if (!known.includes(scenario)) throw new Error(`unknown scenario ${JSON.stringify(scenario)}: a fleet runs built-in scenarios (${known.join(', ')})`);
    const weight = /^\d+(\.\d+)?$/.test(share) && rest.length === 0 ? Number(share) : Number.NaN;
    if (!(weight > 0)) throw new Error(`the share of ${scenario} must be a positive number (default=0.7,gl-ar150=0.3), not ${JSON.stringify(share)}`);
    return { scenario, share: weight };
  });
  const names = shares.map(({ scenario }) => scenario);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new Error(`the scenario ${twice} is named twice`);
  return shares;
}

/** The scenario of the device at `index`: drawn by the shares, so that a mix holds over any stretch of the fleet. */
function scenarioOf(spec: FleetSpec, index: number): string {
  const [first, ...others] = spec.scenarios;
  if (first === undefined) throw new Error('a fleet needs at least one scenario');
  if (others.length === 0) return first.scenario;
  const total = spec.scenarios.reduce((sum, each) => sum + each.share, 0);
  let left = draw(spec.seed, 'scenario', index) * total;
  for (const each of spec.scenarios) {
    left -= each.share;
    if (left < 0) return each.scenario;
  }
  return spec.scenarios[spec.scenarios.length - 1]!.scenario;
}
