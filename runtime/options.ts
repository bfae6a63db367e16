import { parseArgs } from 'node:util';
import { parseCidr } from '../functions/parsers/ipv4.ts';
import { DEFAULT_CHANGE_LOG_BOUND, type ChangeLogBound } from './changes/bound.ts';
import { DEFAULT_EVENT_BUFFER } from './events/buffer.ts';
import { DEFAULT_EVENT_CLIENTS } from './http/event-stream.ts';

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
  /** Its name in a settings file and in `GET /api/v1/config/settings`; default the flag with `_` for `-`. */
  setting?: string;
  /** How `GET /api/v1/config/settings` shows it: a number, or a command as its argument list; default a string. */
  kind?: 'number' | 'command';
}

/** An on/off flag such as `--no-auth`, optionally also from an environment variable (1/true/yes). */
export interface SwitchSpec {
  flag: string;
  env?: string;
  description: string;
}

/** What {@link readOptions} read: each option's value, each switch's state, and whether help was asked. */
export interface CommandLine<S extends readonly OptionSpec[], W extends readonly SwitchSpec[]> {
  values: { [K in S[number]['flag']]: string | undefined };
  switches: { [K in W[number]['flag']]: boolean };
  help: boolean;
}

/**
 * Reads a command line. A string option comes from its flag, then its environment variable (when set
 * and not empty), then `fromFile` (a settings file's values by flag, see runtime/settings.ts), then its default. A switch is on when its flag is given or its environment variable
 * is 1, true or yes (0, false, no or empty: off). `--help` and `-h` are always accepted.
 *
 * @throws UsageError for an unknown flag, a missing value, a positional argument or a switch variable
 *   that is neither on nor off.
 * @example
 * readOptions([{ flag: 'port', env: 'CHUTEBOX_PORT', default: '8080', value: 'PORT', description: '…' }],
 *   ['--no-auth'], process.env, [{ flag: 'no-auth', env: 'CHUTEBOX_NO_AUTH', description: '…' }])
 * // { values: { port: '8080' }, switches: { 'no-auth': true }, help: false }
 */
export function readOptions<const S extends readonly OptionSpec[], const W extends readonly SwitchSpec[] = readonly []>(
  specs: S,
  argv: string[],
  env: NodeJS.ProcessEnv,
  switches: W = [] as unknown as W,
  fromFile: Readonly<Record<string, string>> = {},
): CommandLine<S, W> {
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
    values[spec.flag] = typeof flag === 'string' ? flag : fromEnv !== undefined && fromEnv !== '' ? fromEnv : (fromFile[spec.flag] ?? spec.default);
  }
  const on: Record<string, boolean> = {};
  for (const spec of switches) on[spec.flag] = parsed[spec.flag] === true || (spec.env !== undefined && isOn(env[spec.env], spec.env));
  return { values, switches: on, help: parsed.help === true } as CommandLine<S, W>;
}

/**
 * A TCP port, 0 to 65535 (0: any free port).
 *
 * @throws UsageError naming `--<flag>`.
 * @example
 * parsePort('8080') // 8080
 */
export function parsePort(text: string, flag = 'port'): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--${flag} must be an integer from 0 to 65535, not ${JSON.stringify(text)}`);
  return port;
}

/**
 * A duration in seconds, more than 0 and at most 3600, fractions allowed.
 *
 * @throws UsageError naming `--<flag>`.
 * @example
 * parseSeconds('1.5', 'tool-timeout') // 1.5
 */
export function parseSeconds(text: string, flag: string): number {
  const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(seconds > 0 && seconds <= 3600)) throw new UsageError(`--${flag} must be a number of seconds above 0 and at most 3600, not ${JSON.stringify(text)}`);
  return seconds;
}

/**
 * The options of a command that serves the API (`serve`, `emulate`): where it listens, which function
 * bundles it mounts, which origins CORS allows.
 *
 * @param defaultHost `0.0.0.0` on a device, `127.0.0.1` for the emulator.
 * @param bundlesHelp where the function bundles are by default, for the help.
 */
export function listenOptions<const H extends string>(defaultHost: H, bundlesHelp: string) {
  return [
    { flag: 'host', env: 'CHUTEBOX_HOST', default: defaultHost, value: 'HOST', description: 'address to listen on' },
    {
      flag: 'port',
      env: 'CHUTEBOX_PORT',
      default: '8080',
      value: 'PORT',
      description: 'TCP port to listen on, 0 for any free port',
      setting: 'portal_server_port',
      kind: 'number',
    },
    { flag: 'functions', env: 'CHUTEBOX_FUNCTIONS', defaultHelp: bundlesHelp, value: 'DIR', description: 'folder of function bundles to mount' },
    { flag: 'cors-origin', env: 'CHUTEBOX_CORS_ORIGIN', default: '*', value: 'ORIGINS', description: 'origin(s) allowed by CORS, comma-separated' },
  ] as const satisfies readonly OptionSpec[];
}

/** `--upload-limit MB`: the largest upload (an image tar) a route takes, on `serve` and `emulate`. */
/**
 * `--chute-subnet-pool`: where chute networks without an `ipv4_network` take their /24 from
 * (functions/chutes/network-reservations.ts). `auto`, as ParaDrop: 10.128.0.0/9, or 192.168.128.0/17
 * when the WAN is in 10.0.0.0/8.
 */
export const CHUTE_SUBNET_POOL_OPTION = {
  flag: 'chute-subnet-pool',
  env: 'CHUTEBOX_CHUTE_SUBNET_POOL',
  default: 'auto',
  value: 'auto|NETWORK',
  description: 'where chute networks take their /24 from: auto (10.128.0.0/9, or 192.168.128.0/17 with the WAN in 10/8) or a network such as 172.30.0.0/16',
} as const satisfies OptionSpec;

/**
 * Checks a chute subnet pool: `auto`, or a network of /24 or larger in slash notation.
 *
 * @throws UsageError naming `--chute-subnet-pool`.
 */
export function checkSubnetPool(text: string): string {
  const pool = text === 'auto' ? undefined : parseCidr(text);
  if (text !== 'auto' && (pool === undefined || pool.prefix > 24)) {
    throw new UsageError(`--chute-subnet-pool must be auto or a network of /24 or larger such as 172.30.0.0/16, not ${JSON.stringify(text)}`);
  }
  return text;
}

export const UPLOAD_LIMIT_OPTION = {
  flag: 'upload-limit',
  env: 'CHUTEBOX_UPLOAD_LIMIT',
  default: '512',
  value: 'MB',
  description: 'largest upload (an image tar to install a chute from) in MiB; every other body stays at most 1 MiB',
  kind: 'number',
} as const satisfies OptionSpec;

/**
 * An upload limit in whole MiB (1 to 65536), as bytes.
 *
 * @throws UsageError naming `--<flag>`.
 * @example
 * parseMegabytes('512', 'upload-limit') // 536870912
 */
export function parseMegabytes(text: string, flag: string): number {
  const mib = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(mib >= 1 && mib <= 65_536)) throw new UsageError(`--${flag} must be a whole number of MiB from 1 to 65536, not ${JSON.stringify(text)}`);
  return mib * 1024 * 1024;
}

/**
 * `--change-log-records` and `--change-log-days`: how many change records `serve` and `emulate` keep,
 * and for how long (runtime/changes/bound.ts).
 */
export const CHANGE_LOG_OPTIONS = [
  {
    flag: 'change-log-records',
    env: 'CHUTEBOX_CHANGE_LOG_RECORDS',
    default: String(DEFAULT_CHANGE_LOG_BOUND.records),
    value: 'RECORDS',
    description: 'change records kept, besides queued and running ones',
    kind: 'number',
  },
  {
    flag: 'change-log-days',
    env: 'CHUTEBOX_CHANGE_LOG_DAYS',
    default: String(DEFAULT_CHANGE_LOG_BOUND.days),
    value: 'DAYS',
    description: 'days an ended change is kept',
    kind: 'number',
  },
] as const satisfies readonly OptionSpec[];

/**
 * The change log's bound from the values of `CHANGE_LOG_OPTIONS`.
 *
 * @throws UsageError naming `--change-log-records` or `--change-log-days`.
 * @example
 * changeLogBound({ 'change-log-records': '200', 'change-log-days': '30' }) // { records: 200, days: 30 }
 */
export function changeLogBound(values: Record<(typeof CHANGE_LOG_OPTIONS)[number]['flag'], string | undefined>): ChangeLogBound {
  return { records: parseCount(values['change-log-records']!, 'change-log-records'), days: parseCount(values['change-log-days']!, 'change-log-days') };
}

/**
 * `--log-level` and `--log-buffer`: the daemon log of `serve` and `emulate`, JSON lines on standard
 * output and the recent ones in a ring (runtime/log/daemon-log.ts).
 */
export const LOG_OPTIONS = [
  {
    flag: 'log-level',
    env: 'CHUTEBOX_LOG_LEVEL',
    default: 'info',
    value: 'LEVEL',
    description: 'least severe log line written: error, warn, info (a line a request) or debug',
  },
  {
    flag: 'log-buffer',
    env: 'CHUTEBOX_LOG_BUFFER',
    default: '256',
    value: 'KIB',
    description: 'KiB of recent log lines kept for GET /api/v1/logs',
    kind: 'number',
  },
] as const satisfies readonly OptionSpec[];

/**
 * `--events-clients` and `--events-buffer`: how many clients may follow `GET /api/v1/events` at once,
 * and how many events the device keeps for clients that reconnect, on `serve` and `emulate`.
 */
export const EVENTS_OPTIONS = [
  {
    flag: 'events-clients',
    env: 'CHUTEBOX_EVENTS_CLIENTS',
    default: String(DEFAULT_EVENT_CLIENTS),
    value: 'CLIENTS',
    description: 'clients that may follow GET /api/v1/events at once',
    kind: 'number',
  },
  {
    flag: 'events-buffer',
    env: 'CHUTEBOX_EVENTS_BUFFER',
    default: String(DEFAULT_EVENT_BUFFER),
    value: 'EVENTS',
    description: 'events kept for clients that reconnect',
    kind: 'number',
  },
] as const satisfies readonly OptionSpec[];

/**
 * The events' limits from the values of `EVENTS_OPTIONS`.
 *
 * @throws UsageError naming `--events-clients` or `--events-buffer`.
 */
export function eventLimits(values: Record<(typeof EVENTS_OPTIONS)[number]['flag'], string | undefined>): { clients: number; buffer: number } {
  return { clients: parseCount(values['events-clients']!, 'events-clients'), buffer: parseCount(values['events-buffer']!, 'events-buffer') };
}

/**
 * A whole number of items, 1 to 1,000,000.
 *
 * @throws UsageError naming `--<flag>`.
 */
export function parseCount(text: string, flag: string): number {
  const count = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
  if (!(count >= 1 && count <= 1_000_000)) throw new UsageError(`--${flag} must be a whole number from 1 to 1000000, not ${JSON.stringify(text)}`);
  return count;
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

function isOn(text: string | undefined, name: string): boolean {
  if (text === undefined || text === '') return false;
  if (/^(1|true|yes)$/i.test(text)) return true;
  if (/^(0|false|no)$/i.test(text)) return false;
  throw new UsageError(`${name} must be 1, true, yes, 0, false or no, not ${JSON.stringify(text)}`);
}
