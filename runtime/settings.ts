import { getHeapStatistics } from 'node:v8';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Settings } from '../functions/core/device/index.ts';
import { parseShellVars } from '../functions/parsers/shell-vars.ts';
import { readOptions, UsageError, type CommandLine, type OptionSpec, type SwitchSpec } from './options.ts';

/**
 * `--settings FILE`: the settings file, the lowest layer under flags and environment variables. Its
 * `default` is where `chutebox serve` and `chutebox emulate` look when `--settings` is not given.
 */
export const SETTINGS_OPTION = {
  flag: 'settings',
  env: 'CHUTEBOX_SETTINGS',
  default: '/etc/chutebox/settings',
  value: 'FILE',
  description: 'settings file of `name=value` lines; missing is fine at the default path',
  setting: 'settings_file',
} as const satisfies OptionSpec;

/** The name of an option in a settings file and in the settings endpoint. */
function settingName(spec: OptionSpec): string {
  return spec.setting ?? spec.flag.replaceAll('-', '_');
}

/**
 * Reads a command's options in four layers, each winning over the next: its flags, its environment
 * variables (`CHUTEBOX_<NAME>`), the settings file (`--settings`, `SETTINGS_OPTION`), the defaults.
 *
 * The settings file holds one `name=value` per line, in shell syntax (quotes allowed, `#` comments), with
 * each option's setting name: `portal_server_port=8080`, `docker_socket=/run/docker.sock`. A name that
 * is not a setting of the command is refused, so a typo cannot go unnoticed.
 *
 * @throws UsageError for a bad flag, an unreadable settings file other than a missing default one, or
 *   an unknown name in it.
 * @example
 * await readSettings([SETTINGS_OPTION, { flag: 'port', env: 'CHUTEBOX_PORT', default: '8080', value: 'PORT', description: '…', setting: 'portal_server_port' }], [], process.env)
 */
export async function readSettings<const S extends readonly OptionSpec[], const W extends readonly SwitchSpec[] = readonly []>(
  specs: S,
  argv: string[],
  env: NodeJS.ProcessEnv,
  switches: W = [] as unknown as W,
): Promise<CommandLine<S, W>> {
  const first = readOptions(specs, argv, env, switches);
  const file = (first.values as Record<string, string | undefined>)[SETTINGS_OPTION.flag];
  if (first.help || file === undefined) return first;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT' && file === SETTINGS_OPTION.default) return first;
    throw new UsageError(`cannot read the settings file ${file}: ${message}`);
  }
  const byName = new Map(specs.filter((spec) => spec.flag !== SETTINGS_OPTION.flag).map((spec) => [settingName(spec), spec.flag]));
  const fromFile: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseShellVars(text))) {
    const flag = byName.get(name);
    if (flag === undefined) throw new UsageError(`${file}: ${JSON.stringify(name)} is not a setting; known settings: ${[...byName.keys()].sort().join(', ')}`);
    fromFile[flag] = value;
  }
  return readOptions(specs, argv, env, switches, fromFile);
}

/**
 * The settings record that `GET /api/v1/config/settings` answers: every option by its setting name
 * (numbers as numbers, commands as argument lists, unset as null), then `extra` (the real paths, the
 * port actually listened on, `heapLimit()`), which wins.
 *
 * @example
 * settingsRecord(SERVE_OPTIONS, values, { portal_server_port: 8080, state_dir: '/var/lib/chutebox' })
 */
export function settingsRecord(specs: readonly OptionSpec[], values: Record<string, string | undefined>, extra: Settings = {}): Settings {
  const record: Settings = {};
  for (const spec of specs) {
    const value = values[spec.flag];
    const name = settingName(spec);
    if (value === undefined) record[name] = null;
    else if (spec.kind === 'number') record[name] = Number(value);
    else if (spec.kind === 'command') record[name] = parseCommand(value);
    else record[name] = value;
  }
  if (typeof record.settings_file === 'string') record.settings_file = path.resolve(record.settings_file);
  return { ...record, ...extra };
}

/**
 * `heap_limit_mb`, the setting that tells the heap limit of this process in MiB (old and young
 * generations): what the launcher's `--max-heap` made it (runtime/chutebox.sh), or Node's own.
 */
export function heapLimit(): Settings {
  return { heap_limit_mb: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20) };
}

/**
 * A command as its argument list: split at blanks, no quoting, never through a shell. Empty text is no
 * command.
 *
 * @example
 * parseCommand('/etc/init.d/network reload') // ['/etc/init.d/network', 'reload']
 */
export function parseCommand(text: string): string[] {
  return text.split(/[ \t]+/).filter((word) => word !== '');
}
