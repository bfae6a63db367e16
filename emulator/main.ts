import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listen } from '../runtime/http/listen.ts';
import { optionsHelp } from '../runtime/options-help.ts';
import {
  CHANGE_LOG_OPTIONS,
  changeLogBound,
  CHUTE_SUBNET_POOL_OPTION,
  checkSubnetPool,
  eventLimits,
  EVENTS_OPTIONS,
  listenOptions,
  LOG_OPTIONS,
  parseMegabytes,
  parsePort,
  UPLOAD_LIMIT_OPTION,
  UsageError,
  type OptionSpec,
  type SwitchSpec,
} from '../runtime/options.ts';
import type { Settings } from '../functions/core/device/index.ts';
import { HttpProblem } from '../functions/core/problem.ts';
import { startDaemonLog } from '../runtime/log/daemon-log.ts';
import { heapLimit, readSettings, SETTINGS_OPTION, settingsRecord } from '../runtime/settings.ts';
import { parseControllerUrl, parseMilliseconds, parseSeed } from './options.ts';
import { DEFAULT_SEED } from './seeded.ts';
import { CLOCK_PATH } from './clock-api.ts';
import { DEFAULT_CHANGE_DELAY_MS } from './scenario/changes.ts';
import { EMULATOR_ACCOUNT, emulatorApp, type EmulatorApp } from './app.ts';
import { FAULTS_PATH } from './faults/api.ts';
import { faultFileError, readFaultsFile } from './faults/file.ts';
import type { FaultRuleInput } from './faults/rule.ts';
import type { FleetShare } from './fleet/members.ts';
import { readAtMost } from './read-at-most.ts';
import { builtInScenarios, SCENARIO_ENV, type EmulatorState } from './scenario/device.ts';
import { STATE_PATH } from './state-api.ts';
import { stopOnSignals } from './stop-on-signals.ts';
import { checkStateText, STATE_LIMITS } from './state-limits.ts';
import { FLEET_PATH } from './fleet/fleet-app.ts';
import { FLEET_MOST, readFleetFile } from './fleet/fleet-file.ts';
import { FLEET_BUILT_MOST, FLEET_IDLE_MS } from './fleet/fleet.ts';
import { serveFleet } from './fleet/serve-fleet.ts';

export { EMULATOR_ACCOUNT } from './app.ts';

const OPTIONS = [
  {
    flag: 'scenario',
    env: SCENARIO_ENV,
    default: 'default',
    value: 'NAME|DIR',
    description: 'a built-in scenario, or a scenario folder (any path with a slash)',
  },
  ...listenOptions('127.0.0.1', 'functions/ beside the emulator bundle'),
  {
    flag: 'change-delay',
    env: 'CHUTEBOX_CHANGE_DELAY',
    default: String(DEFAULT_CHANGE_DELAY_MS),
    value: 'MS',
    description: 'how long each step of a chute change takes (queued → running → done), in milliseconds',
    kind: 'number',
  },
  UPLOAD_LIMIT_OPTION,
  CHUTE_SUBNET_POOL_OPTION,
  ...CHANGE_LOG_OPTIONS,
  ...LOG_OPTIONS,
  ...EVENTS_OPTIONS,
  {
    flag: 'controller',
    env: 'CHUTEBOX_CONTROLLER',
    defaultHelp: 'the built-in fake controller',
    value: 'URL',
    description: 'cloud controller (http or https base URL) that provisioning and telemetry talk to, whatever pdserver says',
  },
  {
    flag: 'seed',
    env: 'CHUTEBOX_SEED',
    default: String(DEFAULT_SEED),
    value: 'N',
    description: 'the seed of what the emulator draws (0 to 2^53 - 1): the same scenario, seed, writes and clock give the same answers; printed at start',
    kind: 'number',
  },
  {
    flag: 'state',
    env: 'CHUTEBOX_STATE',
    value: 'FILE',
    description: `start from a state exported by GET ${STATE_PATH} (JSON, of the same scenario) instead of the scenario as recorded`,
  },
  {
    flag: 'faults',
    env: 'CHUTEBOX_FAULTS',
    value: 'FILE',
    description: `start with the fault rules of a JSON or YAML file {rules: [...]}, each as POST ${FAULTS_PATH} takes one; a reset goes back to them`,
  },
  {
    flag: 'fleet',
    env: 'CHUTEBOX_FLEET',
    value: 'N',
    description: `emulate a fleet of N devices (1 to ${FLEET_MOST}) from the seed, each at /devices/router-<index>/ and listed by GET ${FLEET_PATH}`,
    kind: 'number',
  },
  {
    flag: 'fleet-file',
    env: 'CHUTEBOX_FLEET_FILE',
    value: 'FILE',
    description:
      'a fleet from a JSON or YAML file {size, scenarios: [{scenario, share}, ...]}: the scenarios its devices run, by share (--fleet wins over its size)',
  },
  {
    flag: 'fleet-built',
    env: 'CHUTEBOX_FLEET_BUILT',
    default: String(FLEET_BUILT_MOST),
    value: 'N',
    description:
      "with --fleet: keep at most N devices built; the least recently used that nothing holds (a stream, a websocket, a provisioning) leaves, kept as what differs from its seed's, and is built again as it was when asked for (a provisioned one also when its telemetry report falls due)",
    kind: 'number',
  },
  {
    flag: 'fleet-idle',
    env: 'CHUTEBOX_FLEET_IDLE',
    default: String(FLEET_IDLE_MS / 1000),
    value: 'SECONDS',
    description: 'with --fleet: a device that no request used or held for this long leaves as --fleet-built tells (0: none leaves for being idle)',
    kind: 'number',
  },
  {
    flag: 'fleet-domain',
    env: 'CHUTEBOX_FLEET_DOMAIN',
    value: 'DOMAIN',
    description: "a fleet's devices also answer by host: Host: router-<index>.DOMAIN",
  },
  SETTINGS_OPTION,
] as const satisfies readonly OptionSpec[];

const SWITCHES = [
  {
    flag: 'no-auth',
    env: 'CHUTEBOX_NO_AUTH',
    description: 'serve every request without credentials that names the emulator localhost or a loopback address and comes from no web page of another origin',
  },
  {
    flag: 'no-provision',
    env: 'CHUTEBOX_NO_PROVISION',
    description: 'with --fleet: the devices do not provision themselves with the controller at start (a client provisions each, as on one device)',
  },
  {
    flag: 'still',
    env: 'CHUTEBOX_STILL',
    description: 'freeze the living network: no station joins, leaves or moves, and the recording is served as it was',
  },
  {
    flag: 'validate',
    env: 'CHUTEBOX_VALIDATE',
    description:
      'check every request below /api/v1 against the OpenAPI document (GET /api/v1/openapi.json) and answer one outside it with a problem ' +
      'naming the rule broken, with the status the API gives it (400, 404, 405, 415, 422, 426), after the credentials; log each answer that breaks the document to stderr',
  },
  {
    flag: 'validate-log',
    env: 'CHUTEBOX_VALIDATE_LOG',
    description: 'check requests and answers as --validate does, but only log those outside the document: the handlers answer every request',
  },
] as const satisfies readonly SwitchSpec[];

const HELP = optionsHelp(
  'chutebox emulate [options]',
  'Serves the device API from a scenario (a recorded device, see fixtures/scenarios/README.md) with the same ' +
    `functions and HTTP layer as \`chutebox serve\`. The scenario is read once and served from memory: restart to serve an edit. ` +
    `Log in as ${EMULATOR_ACCOUNT.username} with an empty password. ` +
    `${STATE_PATH} exports (GET) and imports (PUT) the emulated device's state, POST ${STATE_PATH}/reset resets it to the scenario; ` +
    `${CLOCK_PATH} reads (GET) and sets, advances or changes the speed of (PATCH) its clock. ` +
    `${FAULTS_PATH} lists (GET), adds (POST, PATCH) and removes (DELETE) fault rules. ` +
    'A flag wins over its environment variable, which wins over the settings file (see `chutebox serve --help`, also for --max-heap).',
  OPTIONS,
  SWITCHES,
);

/**
 * `chutebox emulate`: the device API over a scenario. When ready it prints exactly one line
 * `listening on http://HOST:PORT` to stdout, then which scenario it serves and how to log in, then its
 * log as JSON lines (runtime/log/daemon-log.ts); it stops on SIGINT or SIGTERM.
 *
 * @throws UsageError (exit code 2) for bad flags; ScenarioError (the CLI exits with 1) for a bad scenario;
 *   Error (exit code 1) for a `--state` file that cannot be read or does not fit the scenario, or a
 *   `--faults` file that cannot be read or holds a rule that does not check.
 * @example
 * await main(['--scenario', 'gl-ar150', '--port', '0', '--no-auth']);
 */
export async function main(argv: string[]): Promise<void> {
  const { values, switches, help } = await readSettings(OPTIONS, argv, process.env, SWITCHES);
  if (help) {
    process.stdout.write(`${HELP}\nbuilt-in scenarios: ${(await builtInScenarios()).join(', ')}\n`);
    return;
  }
  const port = parsePort(values.port!);
  const auth = !switches['no-auth'];
  const changeDelayMs = parseMilliseconds(values['change-delay']!, 'change-delay');
  const changeLog = changeLogBound(values);
  const events = eventLimits(values);
  const uploadLimit = parseMegabytes(values['upload-limit']!, 'upload-limit');
  checkSubnetPool(values['chute-subnet-pool']!);
  const functionsDir = path.resolve(values.functions ?? fileURLToPath(new URL('./functions/', import.meta.url)));
  const controller = values.controller === undefined ? undefined : parseControllerUrl(values.controller);
  const seed = parseSeed(values.seed!);
  const still = switches.still;
  const log = startDaemonLog(values);
  let settings: Settings = {};
  const faults = values.faults === undefined ? undefined : ((await readFaultsFile(values.faults)) as FaultRuleInput[]);
  if (values.fleet !== undefined || values['fleet-file'] !== undefined) {
    if (values.state !== undefined) throw new UsageError('--state is the state of one device: not with --fleet');
    const fleet = await fleetSpecFrom(values);
    await serveFleet({
      ...fleet,
      seed,
      auth,
      changeDelayMs,
      changeLog,
      eventBuffer: events.buffer,
      eventClients: events.clients,
      still,
      ...(controller === undefined ? {} : { controller }),
      functionsDir,
      corsOrigin: values['cors-origin']!,
      uploadLimit,
      ...(values['fleet-domain'] === undefined ? {} : { domain: values['fleet-domain'] }),
      ...(faults === undefined ? {} : { faults }),
      ...(switches.validate ? { validate: true } : switches['validate-log'] ? { validate: 'log' as const } : {}),
      ...(switches.validate ? { validate: true } : switches['validate-log'] ? { validate: 'log' as const } : {}),
      provision: !switches['no-provision'],
      mostBuilt: parseDevices(values['fleet-built']!, 'fleet-built'),
      idleMs: parseIdleSeconds(values['fleet-idle']!) * 1000,
      log,
      address: { host: values.host!, port },
    });
    return;
  }
  const { app, scenario, state } = await emulatorApp({
    scenario: values.scenario!,
    auth,
    changeDelayMs,
    changeLog,
    eventBuffer: events.buffer,
    eventClients: events.clients,
    seed,
    still,
    ...(controller === undefined ? {} : { controller }),
    functionsDir,
    corsOrigin: values['cors-origin']!,
    uploadLimit,
    settings: () => settings,
    ...(log.requests === undefined ? {} : { answered: log.requests }),
    logs: log.ring,
    ...(switches.validate ? { validate: true } : switches['validate-log'] ? { validate: 'log' as const } : {}),
    ...(faults === undefined ? {} : { faults }),
  }).catch((error: unknown) => {
    throw values.faults === undefined ? error : faultFileError(values.faults, error);
  });
  if (values.state !== undefined) await restoreStateFile(values.state, { name: scenario.name, restore: state.restore });
  const unfollowEvents = log.followEvents(scenario.device);
  const server = await listen(app, { host: values.host!, port });
  settings = settingsRecord(OPTIONS, values, {
    portal_server_port: Number(new URL(server.url).port),
    functions: functionsDir,
    scenario_dir: scenario.dir,
    ...heapLimit(),
  });
  // One write, so a reader that sees the listening line sees the rest with it.
  process.stdout.write(
    `listening on ${server.url}\n` +
      `scenario ${scenario.name}${scenario.description ? `: ${scenario.description}` : ''}\n` +
      (values.state === undefined ? '' : `started from the state in ${values.state}\n`) +
      `seed ${scenario.seed()}${still ? ', the living network still (--still)' : ''}\n` +
      (faults === undefined ? '' : `started with ${faults.length} fault rules from ${values.faults}\n`) +
      (switches.validate ? validationHint('refused') : switches['validate-log'] ? validationHint('logged') : '') +
      (auth
        ? loginHint(server.url)
        : 'authentication is off: requests are served without credentials when they name the emulator localhost or a loopback address and come from no web page of another origin\n'),
  );
  log.write('info', 'listening', { url: server.url, scenario: scenario.name, seed: scenario.seed(), still });

  stopOnSignals(server, log, unfollowEvents);
}

/**
 * Puts the scenario's device in the state of `--state FILE`, within the limits of a PUT
 * (`STATE_LIMITS`): a larger file is refused after its first bytes over the limit, not read whole.
 *
 * @throws Error naming the file and what does not fit (each field a line); the device is left as loaded.
 */
async function restoreStateFile(file: string, scenario: { name: string; restore: EmulatorApp['state']['restore'] }): Promise<void> {
  let text: string | null;
  try {
    text = await readAtMost(file, STATE_LIMITS.bytes);
  } catch (error) {
    throw new Error(`--state ${file}: cannot read it: ${(error as Error).message}`);
  }
  if (text === null) throw new Error(`--state ${file} is larger than ${STATE_LIMITS.bytes} bytes, the most a state may be`);
  try {
    checkStateText(text, '');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new Error(`--state ${file} is not JSON (a state as GET ${STATE_PATH} answers it): ${(error as Error).message}`);
    }
    await scenario.restore(value as EmulatorState);
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    const lines = error.errors?.map((entry) => `${entry.path || 'the state'} ${entry.message}`) ?? [error.message];
    throw new Error(`--state ${file} does not fit scenario ${scenario.name}:\n  ${lines.join('\n  ')}`);
  }
}

/** The size and scenarios of `--fleet N` and `--fleet-file FILE` (the flag's size wins), else every device `--scenario`. */
async function fleetSpecFrom(values: Partial<Record<string, string>>): Promise<{ size: number; scenarios: FleetShare[] }> {
  const file = values['fleet-file'] === undefined ? undefined : await readFleetFile(values['fleet-file']);
  const size = values.fleet === undefined ? file?.size : parseDevices(values.fleet, 'fleet');
  if (size === undefined) throw new UsageError(`--fleet-file ${values['fleet-file']} gives no size: give it one, or --fleet N`);
  return { size, scenarios: file?.scenarios ?? [{ scenario: values.scenario!, share: 1 }] };
}

/** `--fleet N`, `--fleet-built N`: a whole number of devices from 1 to `FLEET_MOST`. */
function parseDevices(text: string, flag: string): number {
  const size = /^[0-9]{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!(size >= 1 && size <= FLEET_MOST)) throw new UsageError(`--${flag} must be a number of devices from 1 to ${FLEET_MOST}, not ${JSON.stringify(text)}`);
  return size;
}

/** `--fleet-idle SECONDS`: a whole number of seconds from 0 (never) to a day. */
function parseIdleSeconds(text: string): number {
  const seconds = /^[0-9]{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds >= 0 && seconds <= 86_400)) throw new UsageError(`--fleet-idle must be a whole number of seconds from 0 to 86400, not ${JSON.stringify(text)}`);
  return seconds;
}

function validationHint(requests: 'refused' | 'logged'): string {
  return `requests outside the OpenAPI document are ${requests}, answers that break it logged to stderr (lines beginning "openapi:")\n`;
}

function loginHint(url: string): string {
  return (
    `log in: curl -s -X POST ${url}/api/v1/auth/local -H 'content-type: application/json' -d '${JSON.stringify(EMULATOR_ACCOUNT)}'\n` +
    `then send the token it answers: curl -s ${url}/api/v1/info/hardware -H 'authorization: Bearer TOKEN'\n`
  );
}
