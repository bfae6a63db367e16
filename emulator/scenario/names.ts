import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEVICE_FILE, ScenarioError } from '../../runtime/scenario/format.ts';
import { PACKAGE_ROOT } from '../package-root.ts';

/** The scenarios shipped with chutebox: `fixtures/scenarios/` of the package. */
export const BUILT_IN_SCENARIOS = new URL('fixtures/scenarios/', PACKAGE_ROOT);

/** A built-in scenario name: no slash, no leading dot. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Whether `nameOrDir` names a built-in scenario (no slash) rather than a folder. */
export function isScenarioName(nameOrDir: string): boolean {
  return !nameOrDir.includes('/');
}

/**
 * The folder of a scenario. A name costs one look at its `device.yaml`; the built-in folder is listed
 * only to say which names there are when it is unknown.
 *
 * @throws ScenarioError for an unknown name (listing the built-in ones) or a folder without `device.yaml`.
 * @example
 * await resolveScenario('default')        // '/…/chutebox/fixtures/scenarios/default'
 * await resolveScenario('./my-recording') // '/…/cwd/my-recording'
 */
export async function resolveScenario(nameOrDir: string, builtIn: URL = BUILT_IN_SCENARIOS): Promise<string> {
  if (!isScenarioName(nameOrDir)) {
    const dir = path.resolve(nameOrDir);
    if (!(await isDirectory(dir))) throw new ScenarioError(`no scenario folder at ${dir}`);
    if (!(await isFile(path.join(dir, DEVICE_FILE)))) throw new ScenarioError(`${dir} is not a scenario: it has no ${DEVICE_FILE}`);
    return dir;
  }
  const dir = path.join(fileURLToPath(builtIn), nameOrDir);
  if (NAME.test(nameOrDir) && (await isFile(path.join(dir, DEVICE_FILE)))) return dir;
  const known = await builtInScenarios(builtIn);
  const list = known.length > 0 ? known.join(', ') : '(none found)';
  throw new ScenarioError(`unknown scenario ${JSON.stringify(nameOrDir)}; built-in scenarios: ${list} (a folder path needs a slash, e.g. ./${nameOrDir})`);
}

/** Names of the built-in scenarios (folders with a `device.yaml`), sorted. */
export async function builtInScenarios(builtIn: URL = BUILT_IN_SCENARIOS): Promise<string[]> {
  const root = fileURLToPath(builtIn);
  let entries: string[];
  try {
    entries = await readdir(root);
  } catch {
    return [];
  }
  const names: string[] = [];
  for (const entry of entries.sort()) {
    if (NAME.test(entry) && (await isFile(path.join(root, entry, DEVICE_FILE)))) names.push(entry);
  }
  return names;
}

async function isDirectory(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}
