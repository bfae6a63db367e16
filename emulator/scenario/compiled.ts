import { lstat, mkdir, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { ScenarioError } from '../../runtime/scenario/format.ts';
import { readScenarioDocuments } from './documents.ts';
import { BUILT_IN_SCENARIOS, builtInScenarios } from './names.ts';
import { checkCompiledScenario, COMPILED_SCENARIO_FORMAT, type CompiledScenario, type ScenarioTree } from './tree.ts';

export { COMPILED_SCENARIO_FORMAT, type CompiledScenario, type ScenarioTree } from './tree.ts';

/**
 * Where the build writes the built-in scenarios, compiled: `scenarios/<name>.json` beside the bundle
 * (`dist/scenarios/`). From source there is no such folder, and the scenario folder is read.
 */
export const COMPILED_SCENARIOS = new URL('./scenarios/', import.meta.url);

/** A raw file is cut here, as `rootedFiles` cuts it (runtime/device/files.ts). */
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * A built-in scenario, compiled by the build (`CompiledScenario`), or null when there is none
 * (running from source): its documents parsed and checked when chutebox was built, so that the
 * emulator starts without parsing YAML, and its raw files. A built-in scenario is part of the
 * package: after editing one, build again.
 *
 * @param name a built-in scenario name (`resolveScenario` checked it).
 * @throws ScenarioError for a file that is not a compiled scenario of this chutebox.
 * @example
 * (await compiledScenario('default'))?.files['/proc/cpuinfo']
 */
export async function compiledScenario(name: string, compiled: URL = COMPILED_SCENARIOS): Promise<CompiledScenario | null> {
  let text: string;
  try {
    text = await readFile(new URL(`${name}.json`, compiled), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return checkCompiledScenario(JSON.parse(text));
}

/**
 * Compiles a scenario folder to one document: its documents read and checked
 * (`readScenarioDocuments`) and its raw files (`readScenarioTree`).
 *
 * @param name the scenario's name; default the folder's base name.
 * @throws ScenarioError for a bad scenario, naming the file and field, or one whose documents JSON
 *   cannot hold as they are (e.g. a YAML `.nan`, which JSON writes as null).
 * @example
 * const compiled = await compileScenario('fixtures/scenarios/default');
 * compiled.files['/proc/uptime']; // { file: '…' }
 */
export async function compileScenario(dir: string, name: string = path.basename(path.resolve(dir))): Promise<CompiledScenario> {
  const documents = await readScenarioDocuments(dir);
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(documents)), documents)) {
    throw new ScenarioError(`the scenario ${name} holds a value that JSON cannot hold (NaN, Infinity, undefined, a date …)`);
  }
  return { format: COMPILED_SCENARIO_FORMAT, name, ...documents, files: await readScenarioTree(dir) };
}

/**
 * Compiles every built-in scenario (`compileScenario`) as `<out>/<name>.json`, for
 * `compiledScenario`. The build (esbuild.config.mjs) runs it, so a bad built-in scenario fails the
 * build. Answers the names written.
 *
 * @throws ScenarioError as `compileScenario`.
 * @example
 * await compileScenarios('dist/scenarios'); // ['default', 'gl-ar150']
 */
export async function compileScenarios(out: string, builtIn: URL = BUILT_IN_SCENARIOS): Promise<string[]> {
  await mkdir(out, { recursive: true });
  const names = await builtInScenarios(builtIn);
  for (const name of names) {
    const compiled = await compileScenario(path.join(fileURLToPath(builtIn), name), name).catch((error: unknown) => {
      if (error instanceof ScenarioError) error.message = error.message.replace(`the scenario ${name} `, `the built-in scenario ${name} `);
      throw error;
    });
    await writeFile(path.join(out, `${name}.json`), `${JSON.stringify(compiled)}\n`);
  }
  return names;
}

/**
 * The raw files of a scenario folder as a `ScenarioTree`: every regular file (its text, as
 * `rootedFiles` reads it), folder (its names, sorted) and symbolic link (its target, as written),
 * by device path. Anything else (a socket, a FIFO) is left out, of its folder's names too. An
 * absolute link into the folder is written relative, so the tree answers as the folder did where it
 * was read.
 *
 * @example
 * (await readScenarioTree('fixtures/scenarios/default'))['/etc/os-release']; // { link: '../usr/lib/os-release' }
 */
export async function readScenarioTree(dir: string): Promise<ScenarioTree> {
  const root = path.resolve(dir);
  const tree: ScenarioTree = {};
  async function walk(devicePath: string): Promise<void> {
    const names: string[] = [];
    tree[devicePath] = { dir: names };
    for (const name of (await readdir(path.join(root, devicePath))).sort()) {
      const at = devicePath === '/' ? `/${name}` : `${devicePath}/${name}`;
      const file = path.join(root, at);
      const stats = await lstat(file);
      if (stats.isSymbolicLink()) tree[at] = { link: portableLink(root, file, await readlink(file)) };
      else if (stats.isFile()) tree[at] = { file: (await readFile(file)).subarray(0, MAX_FILE_BYTES).toString('utf8') };
      else if (stats.isDirectory()) await walk(at);
      else continue;
      names.push(name);
    }
  }
  await walk('/');
  return tree;
}

/** A link's target as the tree keeps it: an absolute target inside the folder made relative to the link; any other as written. */
function portableLink(root: string, file: string, target: string): string {
  if (!path.isAbsolute(target)) return target;
  const resolved = path.resolve(target);
  return resolved === root || resolved.startsWith(root + path.sep) ? path.relative(path.dirname(file), resolved) || '.' : target;
}
