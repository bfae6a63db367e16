import { parseArgs } from 'node:util';

/** One string option of a command: a flag, the environment variable it may come from, a default. */
export interface OptionSpec {
  flag: string;
  env?: string;
  /** Used when neither the flag nor the environment variable is set. */
  default?: string;
  /** How the help shows a default that is computed at run time. */
  defaultHelp?: string;
  /** Placeholder of the value in the help, e.g. PORT. */
  value: string;
  description: string;
}

/**
 * Reads string options from flags, then from the environment, then their defaults (a flag wins over
 * its environment variable). `--help` is always accepted.
 *
 * @throws UsageError for an unknown flag, a missing value or a positional argument.
 * @example
 * readOptions([{ flag: 'port', env: 'CHUTEBOX_PORT', default: '8080', value: 'PORT', description: '…' }], ['--port', '0'], process.env)
 * // { values: { port: '0' }, help: false }
 */
export function readOptions<const S extends readonly OptionSpec[]>(
  specs: S,
  argv: string[],
  env: NodeJS.ProcessEnv,
): { values: { [K in S[number]['flag']]: string | undefined }; help: boolean } {
  const options = Object.fromEntries([...specs.map((spec) => [spec.flag, { type: 'string' as const }]), ['help', { type: 'boolean' as const, short: 'h' }]]);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: false });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values: Record<string, string | undefined> = {};
  for (const spec of specs) {
    const flag = parsed.values[spec.flag];
    const fromEnv = spec.env === undefined ? undefined : env[spec.env];
    values[spec.flag] = typeof flag === 'string' ? flag : fromEnv !== undefined && fromEnv !== '' ? fromEnv : spec.default;
  }
  return { values: values as { [K in S[number]['flag']]: string | undefined }, help: parsed.values.help === true };
}

/** The help text of a command: usage line, summary, then one line per option. */
export function optionsHelp(usage: string, summary: string, specs: readonly OptionSpec[]): string {
  const rows = specs.map((spec) => {
    const left = `  --${spec.flag} ${spec.value}`;
    const extras = [spec.env && `env ${spec.env}`, (spec.defaultHelp ?? spec.default) !== undefined && `default ${spec.defaultHelp ?? spec.default}`].filter(Boolean).join('; ');
    return `${left.padEnd(28)} ${spec.description}${extras ? ` (${extras})` : ''}`;
  });
  return [`usage: ${usage}`, '', summary, '', 'options:', ...rows, `${'  -h, --help'.padEnd(28)} show this help`, ''].join('\n');
}

/**
 * A mistake on the command line (unknown flag, bad value). The CLI prints its message and exits with
 * `exitCode` (2) instead of showing a stack. Other entry points may throw any error with a numeric
 * `exitCode` to the same effect.
 *
 * @example
 * throw new UsageError('--port must be an integer from 0 to 65535, not 70000');
 */
export class UsageError extends Error {
  readonly exitCode = 2;
  override name = 'UsageError';
}
