import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Device } from '../../functions/core/device/index.ts';
import type { FunctionInput, Handler } from '../../functions/core/handler.ts';
import { PACKAGE_VERSION } from '../../functions/core/version.ts';
import { handle as newConfig } from '../../functions/config/new-config.get.ts';
import { handle as environment } from '../../functions/info/environment.get.ts';
import { handle as features } from '../../functions/info/features.get.ts';
import { handle as hardware } from '../../functions/info/hardware.get.ts';
import { handle as software } from '../../functions/info/software.get.ts';
import { handle as telemetry } from '../../functions/info/telemetry.get.ts';
import { kernelTagsVlans } from '../../functions/info/vlan.ts';
import { formatEnviron, parseEnviron, redactSecrets } from '../../functions/parsers/environ.ts';
import { redactPasswd } from '../../functions/parsers/passwd.ts';
import { DEFAULT_STATE_DIR } from '../../functions/core/device/index.ts';
import { createHostDevice, HOST_DEVICE_FLAGS, hostDeviceOptions } from '../host-device.ts';
import { optionsHelp } from '../options-help.ts';
import { readOptions, UsageError, type OptionSpec, type SwitchSpec } from '../options.ts';
import { PASSWD_FILE } from '../scenario/format.ts';
import { boundLogs, compareChutes, readChutes, redactChutes } from './chutes.ts';
import { recordingDevice, trimNetInterfaces, type Recording } from './recording-device.ts';
import { writeScenario } from './write-scenario.ts';

/**
 * The handlers whose questions make up a recording, by endpoint: the /api/v1/info endpoints, and the
 * host configuration generated from the hardware (its Ethernet interfaces in /sys/class/net, its radios).
 */
const HANDLERS: Record<string, Handler> = {
  '/api/v1/info/environment': environment,
  '/api/v1/info/hardware': hardware,
  '/api/v1/info/software': software,
  '/api/v1/info/features': features,
  '/api/v1/info/telemetry': telemetry,
  '/api/v1/config/new-config': newConfig,
};
const TELEMETRY = '/api/v1/info/telemetry';

const ENVIRON = '/proc/self/environ';
const NO_INPUT: FunctionInput = { params: {}, query: {}, headers: {}, body: undefined, text: '' };

const OPTIONS = [
  { flag: 'out', value: 'DIR', description: 'the scenario folder to create (required)' },
  // As `chutebox serve` takes them, so that the recording sees what the daemon serves.
  {
    flag: 'state-dir',
    env: 'CHUTEBOX_STATE_DIR',
    default: DEFAULT_STATE_DIR,
    value: 'DIR',
    description: "the runtime's state, whose installed chutes are recorded",
  },
  ...HOST_DEVICE_FLAGS,
] as const satisfies readonly OptionSpec[];

const SWITCHES = [{ flag: 'force', description: 'replace DIR when it exists and is not empty' }] as const satisfies readonly SwitchSpec[];

const HELP = optionsHelp(
  'chutebox record --out DIR [options]',
  "Records this device's raw sources (the files, links, uname, statfs, programs on PATH and containers that the info endpoints " +
    "and the generated host configuration read, the installed chutes, their recent logs and what their networks' tools print) as a scenario folder that " +
    '`chutebox emulate --scenario DIR` serves. Values of secret-looking environment variables and Wi-Fi keys ' +
    'are written redacted.',
  OPTIONS,
  SWITCHES,
);

/**
 * Opens a scenario folder as a Device that serves its files as recorded (not moved to the present):
 * how `chutebox record` reads back what it wrote. The emulator's scenario Device is one, which
 * emulator/record.ts passes in: the recorder lies below the emulator and cannot import it.
 *
 * @example
 * const openScenario: OpenScenario = async (dir) => (await loadScenario(dir, undefined, { asRecorded: true })).device;
 */
export type OpenScenario = (dir: string) => Promise<Device>;

/**
 * `chutebox record --out DIR`: runs the info handlers and the generated host configuration
 * (`/api/v1/config/new-config`, which reads /sys/class/net) on this device through a recording Device, reads
 * the installed chutes and the raw sources of their networks through it (`readChutes`; a tool that
 * fails is a warning on stderr), writes all that as a scenario (into a temporary folder beside DIR,
 * renamed into place at the end), and checks that the scenario, opened with `openScenario`, answers
 * exactly as the device did.
 *
 * @throws UsageError (exit code 2) for bad flags; an Error (exit code 1) when DIR is in the way or the
 *   recording cannot be written.
 * @example
 * await record(['--out', './my-router'], openScenario);
 */
export async function record(argv: string[], openScenario: OpenScenario): Promise<void> {
  const { values, switches, help } = readOptions(OPTIONS, argv, process.env, SWITCHES);
  if (help) return void process.stdout.write(HELP);
  if (!values.out) throw new UsageError('--out DIR is required');
  const out = path.resolve(values.out);
  const hostOptions = hostDeviceOptions(values, values['state-dir']!);
  const replacing = await checkTarget(out, switches.force);

  const host = createHostDevice(hostOptions);
  const { device, recording } = recordingDevice(host);
  const answers = await answerAll(device);
  await device.uname();
  // Asked by features only when there is an engine; recorded always, as device.yaml holds it.
  await device.programs();
  // The routes, which chute installs read to keep chute networks off the host's (functions/chutes/network-reservations.ts).
  await device.readFile('/proc/net/route');
  // Whether the kernel makes VLAN interfaces, which installs of a chute with a VLAN network read.
  await kernelTagsVlans(device);
  await device.accounts.passwd();
  for (const warning of await readChutes(device)) process.stderr.write(`warning: ${warning}\n`);
  redactEnvironment(recording);
  redactPasswdFile(recording);
  trimNetInterfaces(recording);
  redactChutes(recording);
  boundLogs(recording);

  await mkdir(path.dirname(out), { recursive: true });
  const temp = await mkdtemp(path.join(path.dirname(out), `.${path.basename(out)}.recording-`));
  try {
    const uname = recording.uname!;
    const when = new Date(device.now()).toISOString();
    await writeScenario(
      recording,
      temp,
      `Recorded by chutebox record ${PACKAGE_VERSION} at ${when} from a ${uname.sysname} ${uname.release} ${uname.machine} device.`,
    );
    await verify(await openScenario(temp), answers, recording);
    await moveIntoPlace(temp, out, replacing);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
  const shown = values.out.includes('/') ? values.out : `./${values.out}`;
  const chutes = [...recording.chutes.values()].filter((chute) => chute !== null).length;
  const networks = [...recording.networks.values()].reduce((sum, byName) => sum + byName.size, 0);
  process.stdout.write(
    `recorded ${recording.files.size} files, ${[...recording.links.values()].filter((t) => t !== null).length} links, ` +
      `${[...recording.statfs.values()].filter((s) => s !== null).length} file systems, ` +
      `${recording.containers ? `${recording.containers.length} chute containers` : 'no container engine'} and ` +
      `${chutes} installed chutes with ${networks} networks into ${out}\n` +
      `checked: it answers ${Object.keys(HANDLERS).join(', ')} as this device did, ` +
      `and its chutes and networks read back as recorded\n` +
      `serve it with: chutebox emulate --scenario ${shown}\n`,
  );
}

/** An answer of a handler: its value, or the message it failed with. */
type Answer = { value: unknown } | { error: string };

async function answerAll(device: Device): Promise<Record<string, Answer>> {
  const entries = await Promise.all(
    Object.entries(HANDLERS).map(async ([name, handle]): Promise<[string, Answer]> => {
      try {
        return [name, { value: await handle(NO_INPUT, device) }];
      } catch (error) {
        return [name, { error: error instanceof Error ? error.message : String(error) }];
      }
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * Replaces the recorded /proc/self/environ by its redacted form (NUL-separated, in the order of the
 * file), by the rule the environment endpoint applies: no secret value reaches the scenario.
 */
function redactEnvironment(recording: Recording): void {
  const raw = recording.files.get(ENVIRON);
  if (raw !== undefined) recording.files.set(ENVIRON, formatEnviron(redactSecrets(parseEnviron(raw))));
}

/** Replaces any password hash in the recorded passwd database by `x` (`redactPasswd`). */
function redactPasswdFile(recording: Recording): void {
  const raw = recording.files.get(PASSWD_FILE);
  if (raw !== undefined) recording.files.set(PASSWD_FILE, redactPasswd(raw));
}

/**
 * Runs the handlers again on the written scenario, opened as `device`: every answer must be the device's, except the
 * telemetry's `time` (the emulator's clock is the real one); its chutes and their networks, and its
 * passwd database, must read back as recorded.
 *
 * @throws Error naming the endpoints, chutes or networks that differ.
 */
async function verify(device: Device, expected: Record<string, Answer>, recording: Recording): Promise<void> {
  const chutes = await compareChutes(recording, device);
  if (chutes.length > 0) throw new Error(`the recorded scenario does not read back as recorded for: ${chutes.join(', ')}`);
  if ((await device.accounts.passwd()) !== (recording.files.get(PASSWD_FILE) ?? '')) {
    throw new Error(`the recorded scenario does not read back its passwd database (${PASSWD_FILE}) as recorded`);
  }
  const actual = await answerAll(device);
  const comparable = (name: string, answer: Answer | undefined) =>
    name === TELEMETRY && answer && 'value' in answer ? { value: { ...(answer.value as object), time: 0 } } : answer;
  const differing = Object.keys(HANDLERS).filter((name) => !isDeepStrictEqual(comparable(name, expected[name]), comparable(name, actual[name])));
  if (differing.length > 0) {
    throw new Error(`the recorded scenario does not answer as this device did for: ${differing.join(', ')}`);
  }
}

/**
 * Refuses a target that is a file, or a non-empty folder without `force`.
 * @returns whether a folder is there to be replaced.
 */
async function checkTarget(out: string, force: boolean): Promise<boolean> {
  const found = await stat(out).catch(() => null);
  if (found === null) return false;
  if (!found.isDirectory()) throw new Error(`${out} exists and is not a folder`);
  if (!force && (await readdir(out)).length > 0) throw new Error(`${out} is not empty; give --force to replace it`);
  return true;
}

/** Puts the finished recording at `out` with renames, so `out` is never half written. */
async function moveIntoPlace(temp: string, out: string, replacing: boolean): Promise<void> {
  if (!replacing) return rename(temp, out);
  const old = await mkdtemp(path.join(path.dirname(out), `.${path.basename(out)}.replaced-`));
  await rename(out, path.join(old, 'scenario'));
  await rename(temp, out);
  await rm(old, { recursive: true, force: true });
}
