import type { Device } from '../../functions/core/device/index.ts';
import { ScenarioError } from '../../runtime/scenario/format.ts';
import type { ScenarioDocuments } from './documents.ts';

/**
 * One entry of a scenario folder, as `ScenarioTree` holds it: a regular file's text (as `rootedFiles`
 * reads it: UTF-8, cut at 1 MiB), a folder's names (sorted, as `readdir` lists them), or a symbolic
 * link's target, as written.
 */
export type ScenarioTreeEntry = { file: string } | { dir: string[] } | { link: string };

/**
 * The raw files of a scenario folder as one JSON value: every file, folder and symbolic link by its
 * device path (`/`, `/proc/cpuinfo`, `/etc/os-release`). What `treeFiles` serves, and what a compiled
 * scenario carries (`CompiledScenario.files`), so that a scenario runs where there is no file system
 * (a browser). Anything else in the folder (a socket, a FIFO) is left out.
 */
export type ScenarioTree = Record<string, ScenarioTreeEntry>;

/** How many links one path may go through before it reads as missing, as Linux's ELOOP. */
const MAX_LINKS = 40;

/** How many paths `treeFiles` keeps the answers for (each of its kept maps). */
const RESOLVED_PATHS = 4096;

/**
 * The file part of a Device served from a `ScenarioTree`, in memory: each path answers what
 * `rootedFiles` answers for the folder the tree was read from (`readScenarioTree`). Relative links are
 * followed inside the tree; a path with a `..` segment, a link that is absolute or climbs above the
 * root, a loop of links, or a path that goes through a file reads as missing, as on the disk.
 * Nothing here needs Node: it is how a scenario's files are served in a browser, and how a compiled
 * built-in scenario's are served in Node.
 *
 * @example
 * const files = treeFiles({ '/': { dir: ['etc'] }, '/etc': { dir: ['hostname'] }, '/etc/hostname': { file: 'lab\n' } });
 * await files.readFile('/etc/hostname'); // 'lab\n'
 * await files.readDir('/etc'); // ['hostname']
 */
export function treeFiles(tree: ScenarioTree): Pick<Device, 'readFile' | 'readDir' | 'realPath'> {
  const entry = (devicePath: string): ScenarioTreeEntry | undefined => (Object.hasOwn(tree, devicePath) ? tree[devicePath] : undefined);

  // Where each path asked for resolves, and the answers to reading it: the tree never changes, and the
  // info endpoints ask the same paths on every request.
  const resolvedPaths = new Map<string, string | null>();
  const fileAnswers = new Map<string, Promise<string | null>>();
  const dirAnswers = new Map<string, Promise<readonly string[]>>();
  const realPathAnswers = new Map<string, Promise<string | null>>();
  const resolve = (devicePath: string) => kept(resolvedPaths, devicePath, resolveInTree);

  /** The device path `devicePath` resolves to inside the tree (links followed), or null when it does not. */
  function resolveInTree(devicePath: string): string | null {
    if (!devicePath.startsWith('/') || devicePath.includes('\0') || devicePath.split('/').includes('..')) return null;
    const pending = devicePath.split('/').filter((part) => part !== '');
    const resolved: string[] = [];
    let links = 0;
    while (pending.length > 0) {
      const name = pending.shift()!;
      if (name === '.') continue;
      if (name === '..') {
        // Above the root is the host's, not the scenario's.
        if (resolved.length === 0) return null;
        resolved.pop();
        continue;
      }
      const at = `/${[...resolved, name].join('/')}`;
      const found = entry(at);
      if (found === undefined) return null;
      if ('link' in found) {
        if (++links > MAX_LINKS || found.link.startsWith('/')) return null;
        pending.unshift(...found.link.split('/').filter((part) => part !== ''));
        continue;
      }
      // A file has nothing under it.
      if ('file' in found && pending.length > 0) return null;
      resolved.push(name);
    }
    const at = `/${resolved.join('/')}`;
    // `/x/` names a folder: a file read so is missing, as on the disk.
    if (devicePath.endsWith('/') && devicePath !== '/' && !('dir' in (entry(at) ?? { file: '' }))) return null;
    return entry(at) === undefined ? null : at;
  }

  const readFile = async (devicePath: string) => {
    const at = resolve(devicePath);
    const found = at === null ? undefined : entry(at);
    return found !== undefined && 'file' in found ? found.file : null;
  };
  const readDir = async (devicePath: string): Promise<readonly string[]> => {
    const at = resolve(devicePath);
    const found = at === null ? undefined : entry(at);
    return Object.freeze(found !== undefined && 'dir' in found ? [...found.dir] : []);
  };
  const realPath = async (devicePath: string) => resolve(devicePath);
  // From memory: a file's text, a folder's names (frozen) and a real path as the same answer each time.
  return {
    readFile: (devicePath) => kept(fileAnswers, devicePath, readFile),
    readDir: (devicePath) => kept(dirAnswers, devicePath, readDir),
    realPath: (devicePath) => kept(realPathAnswers, devicePath, realPath),
  };
}

/**
 * `answers`' answer for `key`: made by `make` on the first call, the same one after. Emptied when it
 * holds RESOLVED_PATHS, as request data can name paths.
 */
export function kept<T>(answers: Map<string, T>, key: string, make: (key: string) => T): T {
  let answer = answers.get(key);
  if (answer === undefined) {
    if (answers.size >= RESOLVED_PATHS) answers.clear();
    answer = make(key);
    answers.set(key, answer);
  }
  return answer;
}

/**
 * `path.posix.normalize` without Node: `.` segments and repeated slashes dropped, `..` applied (never
 * above the root of an absolute path), a trailing slash kept. An absolute path with no `//` and no
 * `/.` is normal already, and is answered as it is: the path nearly every read names.
 *
 * @example
 * normalizePosix('/boot//x/../'); // '/boot/'
 */
export function normalizePosix(file: string): string {
  if (file.startsWith('/') && !file.includes('//') && !file.includes('/.')) return file;
  if (file === '') return '.';
  const absolute = file.startsWith('/');
  const parts: string[] = [];
  for (const part of file.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!absolute) parts.push('..');
      continue;
    }
    parts.push(part);
  }
  let normal = parts.join('/');
  if (normal === '' && !absolute) normal = '.';
  if (file.endsWith('/') && normal !== '' && normal !== '.') normal += '/';
  else if (file.endsWith('/') && normal === '.' && !absolute) normal = './';
  return absolute ? `/${normal}` : normal;
}

/** What a compiled scenario says it is, with the version of its layout. */
export const COMPILED_SCENARIO_FORMAT = 'chutebox-scenario/1';

/**
 * A scenario compiled to one JSON document: everything a scenario device needs, so that it needs no
 * folder. Its documents (`device.yaml`, the engine recordings, the chutes, `config/hostconfig.yaml`)
 * parsed and checked, as `readScenarioDocuments` gives them, and its raw files (`files`, raw network
 * recordings and the YAML included), as `treeFiles` serves them. What the build writes for the
 * built-in scenarios (`dist/scenarios/<name>.json`), what `chutebox scenario compile DIR` writes for a
 * recorded one, and what `scenarioFromDocument` (and `chuteboxHandlers` in a browser) serves.
 */
export interface CompiledScenario extends ScenarioDocuments {
  format: typeof COMPILED_SCENARIO_FORMAT;
  /** The built-in name, or the folder's base name. */
  name: string;
  /** Every raw file, folder and link of the scenario folder. */
  files: ScenarioTree;
}

/**
 * A compiled scenario, checked for its layout (the format, a name, a root folder, a `device.yaml`
 * with `uname`): its documents were checked when it was compiled.
 *
 * @throws ScenarioError for anything else, e.g. a scenario folder's path or an older compiled layout.
 */
export function checkCompiledScenario(value: unknown): CompiledScenario {
  const scenario = value as Partial<CompiledScenario> | null;
  const problem =
    typeof scenario !== 'object' || scenario === null
      ? 'is not an object'
      : scenario.format !== COMPILED_SCENARIO_FORMAT
        ? `has format ${JSON.stringify(scenario.format)}, not ${COMPILED_SCENARIO_FORMAT} (compile it with this chutebox: chutebox scenario compile DIR)`
        : typeof scenario.name !== 'string'
          ? 'has no name'
          : typeof scenario.files !== 'object' || scenario.files === null || !('dir' in (scenario.files['/'] ?? {}))
            ? 'has no files (its root folder is missing)'
            : typeof scenario.device?.uname !== 'object' || typeof scenario.chutes !== 'object'
              ? 'has no device.yaml or chutes'
              : null;
  if (problem !== null) throw new ScenarioError(`a compiled scenario ${problem}`);
  return scenario as CompiledScenario;
}
