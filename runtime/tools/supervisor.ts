import { type ChildProcess, spawn } from 'node:child_process';
import { appendFile, open, readFile, rm, truncate } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileAtomic } from '../state/atomic-write.ts';
import { readIfExists } from '../state/read-if-exists.ts';
import { daemonLog } from '../log/log.ts';

/** A long-running program that `supervise` keeps running. */
export interface SupervisedSpec {
  /** What the process is, in messages and errors: e.g. `hostapd for vwlan1a2b`. */
  name: string;
  /** The executable (a name on PATH or a path) and its arguments; run without a shell. */
  argv: readonly [string, ...string[]];
  /** Where its pid is recorded, e.g. `<dir>/hostapd-vwlan1a2b.pid` (the folder must exist); its log is `logFileOf(pidFile)`. */
  pidFile: string;
  /** How long the process must stay up to count as started; default 300 ms. */
  settleMs?: number;
  /** The first wait before a restart, doubled after each quick exit up to 30 s; default 1000 ms (tests pass less). */
  restartDelayMs?: number;
  /** The most its log may grow to before it is cut to its last half (`trimLog`); default 256 KiB. */
  maxLogBytes?: number;
  /** How often the log's size is looked at; default 60 s (tests pass less). */
  logCheckMs?: number;
}

/** A process `supervise` started or adopted, restarted whenever it exits until `stop()`. */
export interface Supervised {
  /** Its current pid (a restart changes it). */
  readonly pid: number;
  /** True when an already running process was adopted rather than started. */
  readonly adopted: boolean;
  /** Stops it: SIGTERM to its process group, SIGKILL after `graceMs` (default 3000), waits until it is gone, removes the pid file. No restart after. */
  stop(graceMs?: number): Promise<void>;
}

/** What a pid file holds: `startTicks` (field 22 of /proc/<pid>/stat) tells our process from a later one given the same pid. */
interface PidRecord {
  pid: number;
  argv: string[];
  startTicks: number;
}

const DEFAULT_SETTLE_MS = 300;
const DEFAULT_GRACE_MS = 3000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A process up this long gets the first restart delay again when it exits. */
const STABLE_MS = 60_000;
/** How often an adopted process (not our child: no exit event) is looked at. */
const ADOPTED_POLL_MS = 1000;
const LOG_TAIL_BYTES = 2048;
/** The most a daemon's log keeps: hostapd and dnsmasq log each station and lease as long as they run. */
const MAX_LOG_BYTES = 256 * 1024;
const LOG_CHECK_MS = 60_000;

/**
 * The log file beside a pid file: `.pid` replaced by `.log` (or `.log` appended).
 *
 * @example
 * logFileOf('/run/chutebox/hostapd-vwlan1a2b.pid') // '/run/chutebox/hostapd-vwlan1a2b.log'
 */
export function logFileOf(pidFile: string): string {
  return `${pidFile.endsWith('.pid') ? pidFile.slice(0, -4) : pidFile}.log`;
}

/**
 * Keeps a daemon running, without a shell: adopts the process the pid file names when it still runs
 * the same program (same start time and command line; the pid file outlives a killed `serve`), or
 * starts `argv` in its own process group with stdin ignored and stdout and stderr appended to the log,
 * so it survives the death of `serve`. A recorded process of ours running other arguments (an older
 * configuration) is stopped first. It is restarted whenever it exits, after 1 s doubling up to 30 s.
 *
 * @throws Error naming `name` when the executable is missing, or when the process exits within
 *   `settleMs`: with its exit code or signal and the end of its log.
 * @example
 * const hostapd = await supervise({ name: 'hostapd for vwlan1a2b', argv: ['hostapd', conf], pidFile: `${dir}/hostapd-vwlan1a2b.pid` });
 * await hostapd.stop();
 */
export async function supervise(spec: SupervisedSpec): Promise<Supervised> {
  const record = await readRecord(spec.pidFile);
  const recordedAlive = record !== null && (await isRecorded(record));
  if (recordedAlive && sameProgram(record.argv, spec.argv)) return watch(spec, record, pollUntilGone(record), true);
  if (recordedAlive) {
    daemonLog.warn(`${spec.name}: stopping pid ${record.pid}, which runs other arguments (${record.argv.join(' ')})`);
    await terminate(spec.name, record, DEFAULT_GRACE_MS);
  }
  try {
    const run = await launch(spec);
    const settleMs = spec.settleMs ?? DEFAULT_SETTLE_MS;
    const early = await Promise.race([run.exited, sleep(settleMs, null)]);
    if (early !== null) throw new Error(`${spec.name} ${early} within ${settleMs} ms of its start; ${await logTail(run.logFile, run.logStart)}`);
    return watch(spec, run, run.exited, false);
  } catch (error) {
    await rm(spec.pidFile, { force: true });
    throw error;
  }
}

/**
 * Stops the process a pid file names when it runs and is the one recorded (same start time and
 * program), and removes the pid file; answers whether a process was stopped. For sweeping, at start,
 * the daemons that no chute owns any more.
 *
 * @example
 * await stopRecorded('/run/chutebox/dnsmasq-vwlan0c0d.pid') // true, or false for a stale or missing pid file
 */
export async function stopRecorded(pidFile: string, graceMs = DEFAULT_GRACE_MS): Promise<boolean> {
  const record = await readRecord(pidFile);
  const alive = record !== null && (await isRecorded(record));
  if (alive) await terminate(`pid ${record.pid} of ${pidFile}`, record, graceMs);
  await rm(pidFile, { force: true });
  return alive;
}

/** A process that `launch` started, or one adopted. */
interface Run extends PidRecord {
  /** Resolves, with how it ended (`exited with code 1`), when it exits. */
  exited: Promise<string>;
}

/** Watches a process until `stop()`, and starts a new one, with a growing delay, whenever it ends (`exited`). */
function watch(spec: SupervisedSpec, first: PidRecord, exited: Promise<string>, adopted: boolean): Supervised {
  const firstDelay = spec.restartDelayMs ?? 1000;
  let current: PidRecord = first;
  let upSince = Date.now();
  let delay = firstDelay;
  let stopped = false;
  let restartTimer: NodeJS.Timeout | undefined;
  let launching: Promise<unknown> | undefined;
  let stopping: Promise<void> | undefined;

  const follow = (run: PidRecord, exited: Promise<string>) =>
    void exited.then((how) => {
      if (stopped || run !== current) return;
      const wait = Date.now() - upSince >= STABLE_MS ? firstDelay : delay;
      delay = Math.min(wait * 2, MAX_RESTART_DELAY_MS);
      daemonLog.warn(`${spec.name} (pid ${run.pid}) ${how}; restarting it in ${wait / 1000} s`);
      restartTimer = setTimeout(restart, wait).unref();
    });
  const restart = () => {
    if (stopped) return;
    launching = launch(spec).then(
      (run) => {
        current = run;
        upSince = Date.now();
        follow(run, run.exited);
      },
      (error: unknown) => follow(current, Promise.resolve(`could not be started again: ${(error as Error).message}`)),
    );
  };
  follow(first, exited);
  const logFile = logFileOf(spec.pidFile);
  const maxLogBytes = spec.maxLogBytes ?? MAX_LOG_BYTES;
  const logCheck = setInterval(
    () => void trimLog(logFile, maxLogBytes).catch((error: unknown) => daemonLog.error(`${spec.name}: its log ${logFile} cannot be cut`, { error })),
    spec.logCheckMs ?? LOG_CHECK_MS,
  ).unref();

  return {
    get pid() {
      return current.pid;
    },
    adopted,
    stop(graceMs = DEFAULT_GRACE_MS) {
      stopped = true;
      clearTimeout(restartTimer);
      clearInterval(logCheck);
      return (stopping ??= (async () => {
        await launching;
        await terminate(spec.name, current, graceMs);
        await rm(spec.pidFile, { force: true });
      })());
    },
  };
}

/** Starts `spec.argv` detached, its output appended to the log, and records it in the pid file. */
async function launch(spec: SupervisedSpec): Promise<Run & { logFile: string; logStart: number }> {
  const [file, ...args] = spec.argv;
  const logFile = logFileOf(spec.pidFile);
  const log = await open(logFile, 'a', 0o600);
  let child: ChildProcess;
  let logStart: number;
  let spawned: Promise<NodeJS.ErrnoException | null>;
  let exited: Promise<string>;
  try {
    logStart = (await log.stat()).size;
    child = spawn(file, args, { detached: true, stdio: ['ignore', log.fd, log.fd], windowsHide: true });
    // Listened to before any await: 'spawn' or 'error' comes on the next tick, and a program that fails at once exits during the next await.
    spawned = new Promise((resolve) => child.once('spawn', () => resolve(null)).once('error', resolve));
    exited = new Promise<string>((resolve) =>
      child.once('exit', (code, signal) => resolve(code !== null ? `exited with code ${code}` : `was ended by ${signal}`)),
    );
  } finally {
    await log.close();
  }
  const error = await spawned;
  if (error !== null) {
    const { code, message } = error;
    const where = file.includes('/') ? `at ${file}` : `on PATH (as ${file})`;
    const why = code === 'ENOENT' ? `is not installed ${where}` : code === 'EACCES' ? `is not executable ${where}` : `cannot be run (${file}): ${message}`;
    throw new Error(`${spec.name} cannot start: ${path.basename(file)} ${why}`);
  }
  child.on('error', (error) => daemonLog.error(spec.name, { error }));
  const pid = child.pid!;
  const record = { pid, argv: [...spec.argv], startTicks: (await procStat(pid))?.startTicks ?? -1 };
  await writeFileAtomic(spec.pidFile, `${JSON.stringify(record)}\n`, 0o600);
  child.unref();
  return { ...record, exited, logFile, logStart };
}

/** Resolves when a process that is not our child ends, looking every second without keeping Node alive. */
function pollUntilGone(record: PidRecord): Promise<string> {
  return new Promise((resolve) => {
    const look = async () => {
      if (await isRunning(record)) setTimeout(look, ADOPTED_POLL_MS).unref();
      else resolve('ended (it was adopted: its exit code is unknown)');
    };
    setTimeout(look, ADOPTED_POLL_MS).unref();
  });
}

/** SIGTERM to the process group, SIGKILL after `graceMs`; resolves when the process is gone. */
async function terminate(name: string, record: PidRecord, graceMs: number): Promise<void> {
  const goneWithin = async (ms: number) => {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (!(await isRunning(record))) return true;
    return !(await isRunning(record));
  };
  if (await goneWithin(0)) return;
  signalGroup(record.pid, 'SIGTERM');
  if (await goneWithin(graceMs)) return;
  signalGroup(record.pid, 'SIGKILL');
  if (!(await goneWithin(5000))) throw new Error(`${name} (pid ${record.pid}) did not end after SIGKILL`);
}

/** Signals a process's group (ours lead their own), or the process alone when it left it; either may be gone already. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
      return;
    } catch {
      // no such group (or process): try the process alone, then give up
    }
  }
}

/** State and start time (fields 3 and 22) of /proc/<pid>/stat, or null when there is no such process. */
async function procStat(pid: number): Promise<{ state: string; startTicks: number } | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (stat === null) return null;
  // Field 2, `(comm)`, may hold spaces and parentheses: the fields after the last `)` start at field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', startTicks: Number(fields[19]) };
}

/** Whether the recorded process still runs (a zombie does not). */
async function isRunning(record: PidRecord): Promise<boolean> {
  const stat = await procStat(record.pid);
  return stat !== null && stat.state !== 'Z' && stat.startTicks === record.startTicks;
}

/** Whether the recorded process still runs the recorded program. */
async function isRecorded(record: PidRecord): Promise<boolean> {
  const cmdline = await readFile(`/proc/${record.pid}/cmdline`, 'utf8').catch(() => '');
  return (await isRunning(record)) && sameProgram(cmdline.replace(/\0$/, '').split('\0'), record.argv);
}

/**
 * Whether a command line runs `argv`: its last `argv.length` words are `argv`, the first compared by
 * basename (a name found on PATH shows as its path; a script run by its interpreter has that before it).
 */
function sameProgram(cmdline: readonly string[], argv: readonly string[]): boolean {
  const tail = cmdline.slice(-argv.length);
  return tail.length === argv.length && tail.every((word, i) => (i === 0 ? path.basename(word) === path.basename(argv[0]!) : word === argv[i]));
}

/** The pid file's record, or null when it is missing or not one. */
async function readRecord(pidFile: string): Promise<PidRecord | null> {
  const text = await readIfExists(pidFile);
  if (text === null) return null;
  try {
    const { pid, argv, startTicks } = JSON.parse(text) as Partial<PidRecord>;
    const valid = Number.isSafeInteger(pid) && pid! > 0 && Number.isSafeInteger(startTicks) && Array.isArray(argv) && argv.length > 0;
    return valid && argv!.every((word) => typeof word === 'string') ? { pid: pid!, argv: argv!, startTicks: startTicks! } : null;
  } catch {
    return null;
  }
}

/**
 * Cuts a log that grew past `maxBytes` to its last half, from the start of a line, after a line that
 * says so; answers whether it cut. The daemon writes on in append mode (its own descriptor), so its
 * next lines follow what is kept.
 *
 * @example
 * await trimLog('/var/lib/chutebox/networks/pids/dnsmasq-vwlan1a2b.log', 256 * 1024) // true when it was longer
 */
export async function trimLog(logFile: string, maxBytes: number): Promise<boolean> {
  const log = await open(logFile, 'r').catch(() => null);
  if (log === null) return false;
  let tail: Buffer;
  try {
    const { size } = await log.stat();
    if (size <= maxBytes) return false;
    const keep = Math.floor(maxBytes / 2);
    const { buffer, bytesRead } = await log.read(Buffer.alloc(keep), 0, keep, size - keep);
    tail = buffer.subarray(0, bytesRead);
  } finally {
    await log.close();
  }
  await truncate(logFile, 0);
  await appendFile(
    logFile,
    Buffer.concat([Buffer.from(`[earlier lines cut: this log keeps at most ${maxBytes} bytes]\n`), tail.subarray(tail.indexOf(0x0a) + 1)]),
  );
  return true;
}

/** What a process printed since `from`: its last lines, at most `LOG_TAIL_BYTES`, to put in an error. */
async function logTail(logFile: string, from: number): Promise<string> {
  const text = (await readFile(logFile).catch(() => Buffer.alloc(0))).subarray(from);
  const tail = text.subarray(Math.max(0, text.length - LOG_TAIL_BYTES)).toString('utf8');
  const lines = (text.length > LOG_TAIL_BYTES ? tail.slice(tail.indexOf('\n') + 1) : tail).trimEnd();
  return lines === '' ? `its log (${logFile}) is empty` : `the end of its log (${logFile}):\n${lines}`;
}
