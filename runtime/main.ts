import type { DaemonLog } from './log/daemon-log.ts';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { authFiles, localAuth, readUsers } from './auth/local.ts';
import { createHostDevice, DEFAULT_CONTAINER_NETWORK, HOST_DEVICE_FLAGS, hostDeviceOptions, STATE_DIR_OPTION } from './host-device.ts';
import { createApp } from './http/app.ts';
import { listen } from './http/listen.ts';
import type { DevicePowerAction, Settings } from '../functions/core/device/index.ts';
import { PDCONF_FILES, type PdconfFile } from '../functions/config/uci.ts';
import {
  CHANGE_LOG_OPTIONS,
  changeLogBound,
  CHUTE_SUBNET_POOL_OPTION,
  checkSubnetPool,
  eventLimits,
  EVENTS_OPTIONS,
  listenOptions,
  LOG_OPTIONS,
  parseCount,
  parseMegabytes,
  parsePort,
  parseSeconds,
  UPLOAD_LIMIT_OPTION,
  type OptionSpec,
} from './options.ts';
import { heapLimit, parseCommand, readSettings, SETTINGS_OPTION, settingsRecord } from './settings.ts';

const SERVE_OPTIONS = [
  ...listenOptions('0.0.0.0', 'functions/ beside the runtime bundle'),
  STATE_DIR_OPTION,
  ...HOST_DEVICE_FLAGS,
  {
    flag: 'container-network',
    env: 'CHUTEBOX_CONTAINER_NETWORK',
    default: DEFAULT_CONTAINER_NETWORK,
    value: 'MODE',
    description: 'network mode of the chute containers: bridge, host, none or a network name',
  },
  UPLOAD_LIMIT_OPTION,
  CHUTE_SUBNET_POOL_OPTION,
  ...CHANGE_LOG_OPTIONS,
  ...LOG_OPTIONS,
  ...EVENTS_OPTIONS,
  {
    flag: 'lab-link',
    env: 'CHUTEBOX_LAB_LINK',
    value: 'IFACE',
    description:
      'for tests and labs, not a router: an Ethernet interface that stands in for the radios and the LAN ports; access points and VLAN networks become macvlans of it, and hostapd runs its wired driver (802.1X, EAP-MD5 with the network key as the password)',
  },
  SETTINGS_OPTION,
  {
    flag: 'passwd-file',
    env: 'CHUTEBOX_PASSWD_FILE',
    default: '/etc/passwd',
    value: 'FILE',
    description: 'the passwd database: the accounts whose SSH keys the API manages',
  },
  pdconfApplyOption('network'),
  pdconfApplyOption('wireless'),
  pdconfApplyOption('dhcp'),
  pdconfApplyOption('firewall'),
  {
    flag: 'pdconf-apply-timeout',
    env: 'CHUTEBOX_PDCONF_APPLY_TIMEOUT',
    default: '60',
    value: 'SECONDS',
    description: 'how long an apply command may run',
    kind: 'number',
  },
  {
    flag: 'controller-timeout',
    env: 'CHUTEBOX_CONTROLLER_TIMEOUT',
    default: '10',
    value: 'SECONDS',
    description: 'how long the cloud controller has to answer',
    kind: 'number',
  },
  {
    flag: 'telemetry-queue-size',
    env: 'CHUTEBOX_TELEMETRY_QUEUE_SIZE',
    default: '100',
    value: 'REPORTS',
    description: 'telemetry reports kept while the controller cannot be reached',
    kind: 'number',
  },
  powerOption('reboot'),
  powerOption('shutdown'),
] as const satisfies readonly OptionSpec[];

/** `--reboot-command COMMAND`, `--shutdown-command COMMAND`: what a reboot or shutdown change runs; none by default. */
function powerOption<const A extends DevicePowerAction>(action: A) {
  return {
    flag: `${action}-command`,
    env: `CHUTEBOX_${action.toUpperCase()}_COMMAND`,
    value: 'COMMAND',
    description: `command that a ${action} change runs (split at blanks, no shell)`,
    kind: 'command',
  } as const satisfies OptionSpec;
}

/** `--pdconf-apply-<file> COMMAND`: how the system takes a rendered pdconf file; none by default. */
function pdconfApplyOption<const F extends PdconfFile>(file: F) {
  return {
    flag: `pdconf-apply-${file}`,
    env: `CHUTEBOX_PDCONF_APPLY_${file.toUpperCase()}`,
    value: 'COMMAND',
    description: `command that applies the rendered ${file} file (split at blanks, no shell; {file} is its path)`,
    kind: 'command',
  } as const satisfies OptionSpec;
}

/** The help of `serve`, made only on --help, with the code of dist/options-help.mjs. */
async function serveHelp(): Promise<string> {
  const { optionsHelp } = await import('./options-help.ts');
  return optionsHelp(
    'chutebox serve [options]',
    "Serves this machine's device API over HTTP. A flag wins over its environment variable, which wins over the settings file (`name=value` lines: the flag with _ for -, portal_server_port for --port). As `chutebox`, it also takes --max-heap MB (CHUTEBOX_MAX_HEAP): the heap limit, by default a quarter of MemTotal, 16 to 256 MB.",
    SERVE_OPTIONS,
  );
}

/**
 * `chutebox serve`: the device API on this machine. Before it listens, it repairs what a crash of an
 * earlier runtime cut short and reconciles the chutes with the engine (`HostDevice.recover`). Prints
 * `listening on http://HOST:PORT` once ready, then its log as JSON lines (runtime/log/daemon-log.ts);
 * SIGTERM and SIGINT close it gracefully.
 *
 * @example
 * await serve(['--host', '127.0.0.1', '--port', '0', '--state-dir', '/tmp/chutebox']);
 */
export async function serve(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values, help } = await readSettings(SERVE_OPTIONS, argv, env);
  if (help) return void process.stdout.write(await serveHelp());
  const port = parsePort(values.port!);
  const uploadLimit = parseMegabytes(values['upload-limit']!, 'upload-limit');
  const stateDir = path.resolve(values['state-dir']!);
  const functionsDir = path.resolve(values.functions ?? fileURLToPath(new URL('./functions/', import.meta.url)));
  const applyCommands: Partial<Record<PdconfFile, string[]>> = {};
  for (const file of PDCONF_FILES) {
    const command = parseCommand(values[`pdconf-apply-${file}`] ?? '');
    if (command.length > 0) applyCommands[file] = command;
  }
  checkSubnetPool(values['chute-subnet-pool']!);
  const changeLog = changeLogBound(values);
  // The daemon log: runtime/log/daemon-log.ts, a bundle of its own, loaded now that the options are read.
  const log = (await import('./log/daemon-log.ts')).startDaemonLog(values);
  const events = eventLimits(values);
  let settings: Settings = {};
  const device = createHostDevice({
    ...hostDeviceOptions(values, stateDir),
    containerNetwork: values['container-network']!,
    changeLog,
    eventBuffer: events.buffer,
    labLink: values['lab-link'] ?? null,
    config: {
      passwdFile: values['passwd-file']!,
      applyCommands,
      applyTimeoutMs: parseSeconds(values['pdconf-apply-timeout']!, 'pdconf-apply-timeout') * 1000,
      controllerTimeoutMs: parseSeconds(values['controller-timeout']!, 'controller-timeout') * 1000,
      telemetryQueueSize: parseCount(values['telemetry-queue-size']!, 'telemetry-queue-size'),
      powerCommands: { reboot: parseCommand(values['reboot-command'] ?? ''), shutdown: parseCommand(values['shutdown-command'] ?? '') },
    },
    settings: () => settings,
  });

  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const auth = await localAuth(stateDir);
  if (Object.keys(await readUsers(authFiles(stateDir).passwd)).length === 0) {
    log.write('warn', 'no password is set: only clients on this machine are served; run `chutebox passwd` to set one');
  }
  // From here a stop is handled: it waits for the start-up repair (`stopAfterRecover`), so that no
  // daemon the repair starts is left running when the runtime exits.
  const recovering = device.recover();
  const stopping = stopAfterRecover(recovering, device, log);
  await recovering;
  if (stopping.asked) return;
  const unfollowEvents = log.followEvents(device);
  // The counters of GET /metrics: a bundle of their own (dist/request-counts.mjs), which keeps this one within its budget.
  const requests = (await import('./http/request-counts.ts')).requestCounter(log.requests);
  const app = await createApp({
    functionsDir,
    device,
    auth,
    corsOrigin: values['cors-origin']!,
    uploadLimit,
    chuteWeb: true,
    answered: requests.count,
    requestCounts: requests.counts,
    logs: log.ring,
    eventClients: events.clients,
  });
  const server = await listen(app, { host: values.host!, port });
  settings = settingsRecord(SERVE_OPTIONS, values, {
    portal_server_port: Number(new URL(server.url).port),
    state_dir: stateDir,
    functions: functionsDir,
    passwd_file: path.resolve(values['passwd-file']!),
    ...heapLimit(),
  });
  const stop = () => {
    log.write('info', 'stopping');
    unfollowEvents();
    log.ring.end();
    // The device stops the commands it runs and records how its changes ended before the runtime exits.
    exitAfter(Promise.all([device.close(), server.close()]), log);
  };
  stopping.release();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Only now is the server ready: a supervisor may stop it at once.
  process.stdout.write(`listening on ${server.url}\n`);
  log.write('info', 'listening', { url: server.url, state_dir: stateDir });
}

/** The longest a stop waits for the start-up repair before it closes the device anyway. */
const RECOVER_WAIT_MS = 10_000;

/**
 * Handles SIGTERM and SIGINT while `serve` repairs at start, before it listens: a stop then waits for
 * the repair to end (at most `RECOVER_WAIT_MS`), closes the device (what it runs stops) and exits 0.
 * `release()` hands the signals over to the runtime's own stop, once it listens.
 */
function stopAfterRecover(recovering: Promise<void>, device: { close(): Promise<void> }, log: Pick<DaemonLog, 'write' | 'close'>) {
  const state = { asked: false, release: () => {} };
  const stop = () => {
    state.asked = true;
    log.write('info', 'stopping');
    const waited = Promise.race([recovering.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, RECOVER_WAIT_MS).unref())]);
    exitAfter(
      waited.then(() => device.close()),
      log,
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  state.release = () => {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  };
  return state;
}

/** Exits once `closing` is done and the log written: 0, or 1 when closing failed (the log says why). */
function exitAfter(closing: Promise<unknown>, log: Pick<DaemonLog, 'write' | 'close'>): void {
  closing.then(
    () => log.close().then(() => process.exit(0)),
    (error: unknown) => {
      log.write('error', 'stopping failed', { error });
      void log.close().then(() => process.exit(1));
    },
  );
}
