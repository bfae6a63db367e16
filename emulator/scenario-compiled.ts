import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { ScenarioError } from '../runtime/scenario/format.ts';
import { readScenarioDocuments, type ScenarioDocuments } from './scenario-documents.ts';
import { BUILT_IN_SCENARIOS, builtInScenarios } from './scenario-names.ts';

/**
 * Where the build writes the documents of the built-in scenarios, compiled: `scenarios/<name>.json`
 * beside the bundle (`dist/scenarios/`). From source there is no such folder, and the YAML is parsed.
 */
export const COMPILED_SCENARIOS = new URL('./scenarios/', import.meta.url);

/**
 * The compiled documents of a built-in scenario, or null when there are none (running from source):
 * what `readScenarioDocuments` gives for its folder, parsed and checked when chutebox was built, so
 * that the emulator starts without parsing YAML. A built-in scenario is part of the package: after
 * editing one, build again.
 *
 * @param name a built-in scenario name (`resolveScenario` checked it).
 * @example
 * (await compiledScenario('default')) ?? (await readScenarioDocuments(dir))
 */
export async function compiledScenario(name: string, compiled: URL = COMPILED_SCENARIOS): Promise<ScenarioDocuments | null> {
  let text: string;
  try {
    text = await readFile(new URL(`${name}.json`, compiled), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return JSON.parse(text) as ScenarioDocuments;
}

/**
 * Compiles every built-in scenario: reads and checks its folder (`readScenarioDocuments`) and writes
 * the documents as `<out>/<name>.json`, for `compiledScenario`. The build (esbuild.config.mjs) runs
 * it, so a bad built-in scenario fails the build. Answers the names written.
 *
 * @throws ScenarioError for a bad scenario, or one whose documents JSON cannot hold as they are
 *   (e.g. a YAML `.nan`, which JSON writes as null).
 * @example
 * await compileScenarios('dist/scenarios'); // ['default', 'gl-ar150']
 */
export async function compileScenarios(out: string, builtIn: URL = BUILT_IN_SCENARIOS): Promise<string[]> {
  await mkdir(out, { recursive: true });
  const names = await builtInScenarios(builtIn);
  for (const name of names) {
    const documents = await readScenarioDocuments(path.join(fileURLToPath(builtIn), name));
    const text = JSON.stringify(documents);
    if (!isDeepStrictEqual(JSON.parse(text), documents)) {
      throw new ScenarioError(`the built-in scenario ${name} holds a value that JSON cannot hold (NaN, Infinity, undefined, a date …)`);
    }
    await writeFile(path.join(out, `${name}.json`), `${text}\n`);
  }
  return names;
}
