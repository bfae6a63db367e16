import { parseArgs } from 'node:util';
import { optionsHelp, UsageError, type OptionSpec } from '../runtime/options.ts';

/** An on/off flag such as `--no-auth`, optionally also from an environment variable (1/true/yes). */
export interface SwitchSpec {
  flag: string;
  env?: string;
  description: string;
}

/**
 * `readOptions` (runtime/options.ts) plus on/off switches: string options come from flags, then
 * environment variables, then defaults; a switch is on when its flag is given or its environment
 * variable is 1, true or yes (0, false, no or empty: off).
 *
 * @throws UsageError for an unknown flag, a missing value, a positional argument or a bad switch value.
 * @example
 * readCommandLine([{ flag: 'port', env: 'CHUTEBOX_PORT', default: '8080', value: 'PORT', description: '…' }],
 *   [{ flag: 'no-auth', env: 'CHUTEBOX_NO_AUTH', description: '…' }], ['--no-auth'], {})
 * // { values: { port: '8080' }, switches: { 'no-auth': true }, help: false }
 */
export function readCommandLine<const S extends readonly OptionSpec[], const W extends readonly SwitchSpec[]>(
  specs: S,
  switches: W,
  argv: string[],
  env: NodeJS.ProcessEnv,
): { values: { [K in S[number]['flag']]: string | undefined }; switches: { [K in W[number]['flag']]: boolean }; help: boolean } {
  const options = Object.fromEntries([
    ...specs.map((spec) => [spec.flag, { type: 'string' as const }]),
    ...switches.map((spec) => [spec.flag, { type: 'boolean' as const }]),
    ['help', { type: 'boolean' as const, short: 'h' }],
  ]);
  let parsed: ReturnType<typeof parseArgs>['values'];
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values: Record<string, string | undefined> = {};
  for (const spec of specs) {
    const flag = parsed[spec.flag];
    const fromEnv = spec.env === undefined ? undefined : env[spec.env];
    values[spec.flag] = typeof flag === 'string' ? flag : fromEnv !== undefined && fromEnv !== '' ? fromEnv : spec.default;
  }
  const on: Record<string, boolean> = {};
  for (const spec of switches) on[spec.flag] = parsed[spec.flag] === true || (spec.env !== undefined && isOn(env[spec.env], spec.env));
  return {
    values: values as { [K in S[number]['flag']]: string | undefined },
    switches: on as { [K in W[number]['flag']]: boolean },
    help: parsed.help === true,
  };
}

/** `optionsHelp` with the switches listed after the options. */
export function commandHelp(usage: string, summary: string, specs: readonly OptionSpec[], switches: readonly SwitchSpec[]): string {
  const asOptions = switches.map((spec) => ({ flag: spec.flag, value: '', description: spec.description, ...(spec.env ? { env: `${spec.env}=1` } : {}) }));
  return optionsHelp(usage, summary, [...specs, ...asOptions]);
}

/**
 * A TCP port, 0 to 65535 (0: any free port).
 *
 * @throws UsageError naming `--<flag>`.
 */
export function parsePort(text: string, flag = 'port'): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--${flag} must be an integer from 0 to 65535, not ${JSON.stringify(text)}`);
  return port;
}

function isOn(text: string | undefined, name: string): boolean {
  if (text === undefined || text === '') return false;
  if (/^(1|true|yes)$/i.test(text)) return true;
  if (/^(0|false|no)$/i.test(text)) return false;
  throw new UsageError(`${name} must be 1, true, yes, 0, false or no, not ${JSON.stringify(text)}`);
}
