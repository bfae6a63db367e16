import path from 'node:path';
import { compiledScenario, compileScenario } from '../scenario/compiled.ts';
import { emulateScenario, type Scenario, type ScenarioOptions, type ScenarioSource } from '../scenario/core.ts';
import { isScenarioName, resolveScenario } from '../scenario/names.ts';
import { treeFiles } from '../scenario/tree.ts';
import { memberIdentity } from './identity-values.ts';
import type { FleetMember, FleetSpec } from './members.ts';
import { IdentityDocuments, identityText, scenarioIdentity, type ScenarioIdentity } from './scenario-identity.ts';

/** One scenario of a fleet: compiled and its files served from memory once (`treeFiles`), and the identity it recorded. */
export interface FleetScenario {
  source: ScenarioSource;
  identity: ScenarioIdentity;
}

/** The scenarios of a fleet, by the name its file gives, each shared by every device that runs it. */
export type FleetScenarios = ReadonlyMap<string, FleetScenario>;

/**
 * Loads each scenario a fleet names once: a built-in one from the build's compiled document, a folder
 * compiled in memory as `chutebox scenario compile` would; and finds the identity each recorded.
 *
 * @throws ScenarioError for a scenario that does not exist or does not check.
 */
export async function loadFleetScenarios(spec: Pick<FleetSpec, 'scenarios'>): Promise<FleetScenarios> {
  const loaded = new Map<string, FleetScenario>();
  for (const { scenario } of spec.scenarios) {
    if (loaded.has(scenario)) continue;
    const built = isScenarioName(scenario) ? await compiledScenario(scenario) : null;
    const dir = built === null ? await resolveScenario(scenario) : null;
    const compiled = built ?? (await compileScenario(dir!, isScenarioName(scenario) ? scenario : path.basename(dir!)));
    const files = treeFiles(compiled.files);
    loaded.set(scenario, {
      source: { name: compiled.name, dir: null, documents: compiled, files },
      identity: await scenarioIdentity(compiled, compiled.files, files),
    });
  }
  return loaded;
}

/**
 * The emulated device of one member of a fleet: its scenario, shared with the other devices that run
 * it, served with the member's own seed and identity (`memberIdentity`). Built when the fleet first
 * needs it (docs/decisions/0055-a-fleet-of-emulated-routers.md).
 *
 * @example
 * const scenarios = await loadFleetScenarios(spec);
 * const router = memberDevice(scenarios, fleetMember(spec, 42), { changeDelayMs: 0 });
 */
export function memberDevice(scenarios: FleetScenarios, member: FleetMember, options: Omit<ScenarioOptions, 'seed'> = {}): Scenario {
  const scenario = scenarios.get(member.scenario);
  if (scenario === undefined) throw new Error(`the fleet has no scenario ${member.scenario}`);
  return emulateScenario(memberSource(scenario, member), Object.assign({}, options, { seed: member.seed }));
}

/**
 * The scenario as the member reads it: each raw text and the documents with the member's identity in
 * place of the recorded one. A text is rewritten each time it is read; the documents are kept as
 * rewritten for as long as the device is built (`IdentityDocuments`).
 */
function memberSource({ source, identity }: FleetScenario, member: FleetMember): ScenarioSource {
  const own = memberIdentity(member);
  const { files } = source;
  return {
    ...source,
    documents: new IdentityDocuments(identity, source.documents, own),
    files: {
      ...files,
      readFile: (devicePath) => files.readFile(devicePath).then((text) => (text === null ? null : identityText(identity, text, own))),
    },
  };
}
