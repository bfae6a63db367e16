import path from 'node:path';
import { compiledScenario, compileScenario } from '../scenario/compiled.ts';
import { emulateScenario, type Scenario, type ScenarioOptions, type ScenarioSource } from '../scenario/core.ts';
import { isScenarioName, resolveScenario } from '../scenario/names.ts';
import { treeFiles } from '../scenario/tree.ts';
import type { FleetMember, FleetSpec } from './members.ts';

/**
 * The scenarios of a fleet, by the name its file gives: each compiled and its files served from memory
 * once (`treeFiles`), shared by every device that runs it.
 */
export type FleetScenarios = ReadonlyMap<string, ScenarioSource>;

/**
 * Loads each scenario a fleet names once: a built-in one from the build's compiled document, a folder
 * compiled in memory as `chutebox scenario compile` would.
 *
 * @throws ScenarioError for a scenario that does not exist or does not check.
 */
export async function loadFleetScenarios(spec: Pick<FleetSpec, 'scenarios'>): Promise<FleetScenarios> {
  const loaded = new Map<string, ScenarioSource>();
  for (const { scenario } of spec.scenarios) {
    if (loaded.has(scenario)) continue;
    const built = isScenarioName(scenario) ? await compiledScenario(scenario) : null;
    const dir = built === null ? await resolveScenario(scenario) : null;
    const compiled = built ?? (await compileScenario(dir!, isScenarioName(scenario) ? scenario : path.basename(dir!)));
    loaded.set(scenario, { name: compiled.name, dir: null, documents: compiled, files: treeFiles(compiled.files) });
  }
  return loaded;
}

/**
 * The emulated device of one member of a fleet: its scenario, shared with the other devices that run
 * it, served with the member's own seed. Built when the fleet first needs it (docs/decisions/0055-a-fleet-of-emulated-routers.md).
 *
 * @example
 * const scenarios = await loadFleetScenarios(spec);
 * const router = memberDevice(scenarios, fleetMember(spec, 42), { changeDelayMs: 0 });
 */
export function memberDevice(scenarios: FleetScenarios, member: FleetMember, options: Omit<ScenarioOptions, 'seed'> = {}): Scenario {
  const source = scenarios.get(member.scenario);
  if (source === undefined) throw new Error(`the fleet has no scenario ${member.scenario}`);
  return emulateScenario(source, { ...options, seed: member.seed });
}
