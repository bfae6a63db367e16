import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fileExists, useTempDir } from '../../test/support/temp-dir.ts';
import { logFileOf, type Supervised, type SupervisedSpec, stopRecorded, supervise } from './supervisor.ts';

const temp = useTempDir('chutebox-supervisor-');

/** Everything a test started, stopped after it. */
const supervised: Supervised[] = [];
const children: ChildProcess[] = [];
let folders = 0;

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(supervised.splice(0).map((daemon) => daemon.stop(500)));
  for (const child of children.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});

/** A fresh folder and a `sleep` of a duration no other process uses, so that /proc tells its processes apart. */
async function sleeper(): Promise<{ dir: string; argv: [string, ...string[]]; pidFile: string }> {
  const dir = await temp.folder(`test-${++folders}`);
  return { dir, argv: ['sleep', `300.${process.pid}${folders}`], pidFile: path.join(dir, 'sleeper.pid') };
}

/** `supervise(spec)`, stopped after the test. */
async function started(spec: SupervisedSpec): Promise<Supervised> {
  const daemon = await supervise(spec);
  supervised.push(daemon);
  return daemon;
}

/** Starts `argv` in its own process group, outside any supervisor (as a `serve` that is gone did), killed after the test. */
async function startedElsewhere(argv: readonly string[]): Promise<number> {
  const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: 'ignore' });
  children.push(child);
  await once(child, 'spawn');
  return child.pid!;
}

/** Field 22 of /proc/<pid>/stat, the start time in clock ticks. */
async function startTicksOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

/** The pids of the running (not zombie) processes whose command line is exactly `argv`. */
async function pidsRunning(argv: readonly string[]): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (cmdline === `${argv.join('\0')}\0` && !/\) Z /.test(stat)) pids.push(Number(entry));
  }
  return pids;
}

/** Waits (up to 5 s) until `check` answers true. */
async function eventually(check: () => boolean | Promise<boolean>): Promise<void> {
  for (const end = Date.now() + 5000; !(await check()); await sleep(20)) if (Date.now() > end) throw new Error('timed out');
}

describe('supervise', () => {
  it('starts the program detached, records pid, argv and start time, logs its output, and stop() ends its whole group and removes the pid file', async () => {
    const { dir, argv } = await sleeper();
    const script = `echo started; echo warning >&2; ${argv.join(' ')}; true`;
    const pidFile = path.join(dir, 'hostapd-vwlan1a2b.pid');
    const daemon = await started({ name: 'hostapd for vwlan1a2b', argv: ['sh', '-c', script], pidFile });

    expect(daemon.adopted).toBe(false);
    expect(JSON.parse(await readFile(pidFile, 'utf8'))).toEqual({ pid: daemon.pid, argv: ['sh', '-c', script], startTicks: await startTicksOf(daemon.pid) });
    expect(await pidsRunning(['sh', '-c', script])).toEqual([daemon.pid]);
    expect(await readFile(path.join(dir, 'hostapd-vwlan1a2b.log'), 'utf8')).toBe('started\nwarning\n');
    const [sleeping] = await pidsRunning(argv);
    expect(sleeping).toBeDefined();

    await daemon.stop();
    expect(await pidsRunning(['sh', '-c', script])).toEqual([]);
    expect(await pidsRunning(argv)).toEqual([]);
    expect(await fileExists(pidFile)).toBe(false);
  });

  it("keeps its log bounded: past maxLogBytes it is cut to its last lines, and the daemon's next lines follow them", async () => {
    const { dir, argv } = await sleeper();
    // 2000 numbered lines of 20 bytes (40 KB) at once, then one more once the log was cut.
    const script = `i=1000; while [ $i -lt 3000 ]; do echo "line $i of the log"; i=$((i+1)); done; while [ ! -e ${dir}/cut ]; do ${argv[0]} 0.05; done; echo after the cut; ${argv.join(' ')}`;
    const logFile = path.join(dir, 'dnsmasq-vwlan1a2b.log');
    await started({
      name: 'dnsmasq for vwlan1a2b',
      argv: ['sh', '-c', script],
      pidFile: path.join(dir, 'dnsmasq-vwlan1a2b.pid'),
      maxLogBytes: 4096,
      logCheckMs: 50,
    });
    await eventually(async () => (await readFile(logFile, 'utf8')).startsWith('[earlier lines cut'));
    await writeFile(path.join(dir, 'cut'), '');
    await eventually(async () => (await readFile(logFile, 'utf8')).endsWith('after the cut\n'));
    const lines = (await readFile(logFile, 'utf8')).split('\n');
    expect(lines[0]).toBe('[earlier lines cut: this log keeps at most 4096 bytes]');
    expect(lines[1]).toMatch(/^line 2\d{3} of the log$/);
    expect(lines.slice(-3)).toEqual(['line 2999 of the log', 'after the cut', '']);
    expect((await readFile(logFile)).length).toBeLessThanOrEqual(4096);
  });

  it('rejects naming the program, its exit code and the end of its log when it exits while settling', async () => {
    const { pidFile } = await sleeper();
    const noise = `${'x'.repeat(99)}\n`.repeat(50);
    const argv = ['sh', '-c', `printf '${noise}'; echo 'Line 3: unknown configuration item' >&2; exit 3`] as const;
    // A settle window far longer than `sh` takes to exit, even on a loaded machine.
    const failure = await supervise({ name: 'hostapd for vwlan1a2b', argv, pidFile, settleMs: 10_000 }).catch((error: Error) => error);

    expect(failure).toBeInstanceOf(Error);
    const { message } = failure as Error;
    expect(message).toMatch(/^hostapd for vwlan1a2b exited with code 3 within 10000 ms of its start; the end of its log/);
    expect(message).toContain(`${logFileOf(pidFile)}):\n`);
    expect(message).toMatch(/x\nLine 3: unknown configuration item$/);
    expect(message.length).toBeLessThan(2300);
    expect(await fileExists(pidFile)).toBe(false);
  });

  it('rejects naming a missing executable', async () => {
    const { pidFile } = await sleeper();
    const failure = supervise({ name: 'dnsmasq for vwlan1a2b', argv: ['chutebox-no-such-dnsmasq', '--keep-in-foreground'], pidFile });
    await expect(failure).rejects.toThrow(
      'dnsmasq for vwlan1a2b cannot start: chutebox-no-such-dnsmasq is not installed on PATH (as chutebox-no-such-dnsmasq)',
    );
    expect(await fileExists(pidFile)).toBe(false);
  });

  it('adopts the process its pid file names instead of starting a second one', async () => {
    const { argv, pidFile } = await sleeper();
    const first = await started({ name: 'sleeper', argv, pidFile });
    const second = await started({ name: 'sleeper', argv, pidFile });

    expect(second).toMatchObject({ adopted: true, pid: first.pid });
    expect(await pidsRunning(argv)).toEqual([first.pid]);
    await first.stop();
  });

  it('adopts a process recorded by a serve that is gone, stops it by its group, and restarts it when it dies', async () => {
    const { argv, pidFile } = await sleeper();
    const pid = await startedElsewhere(argv);
    await writeFile(pidFile, JSON.stringify({ pid, argv, startTicks: await startTicksOf(pid) }));
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});

    const daemon = await started({ name: 'sleeper', argv, pidFile, restartDelayMs: 10 });
    expect(daemon).toMatchObject({ adopted: true, pid });
    process.kill(pid, 'SIGKILL');
    await eventually(() => daemon.pid !== pid);
    expect(await pidsRunning(argv)).toEqual([daemon.pid]);
    expect(errors).toHaveBeenCalledWith(expect.stringMatching(new RegExp(`^sleeper \\(pid ${pid}\\) ended \\(it was adopted`)));

    await daemon.stop();
    expect(await pidsRunning(argv)).toEqual([]);
    expect(await fileExists(pidFile)).toBe(false);
  });

  it.each([
    ['names a process that is gone', async (argv: readonly string[]) => ({ pid: await goneProcess(), argv, startTicks: 1 })],
    ['names a live process running another program', async (argv: readonly string[]) => live(['sleep', '301'], argv)],
    ['names a live process started at another time', async (argv: readonly string[]) => ({ ...(await live(argv, argv)), startTicks: 1 })],
    ['is not JSON', async () => 'pid 42'],
  ])('starts a fresh process when the pid file %s, leaving any other process alone', async (_, recorded) => {
    const { argv, pidFile } = await sleeper();
    const record = await recorded(argv);
    await writeFile(pidFile, typeof record === 'string' ? record : JSON.stringify(record));

    const daemon = await started({ name: 'sleeper', argv, pidFile });
    expect(daemon.adopted).toBe(false);
    expect(JSON.parse(await readFile(pidFile, 'utf8')).pid).toBe(daemon.pid);
    for (const child of children) expect(await pidsRunning(child.spawnargs)).toContain(child.pid);
  });

  it('stops a recorded process of its own that runs other arguments (an older configuration) before starting', async () => {
    const { argv, pidFile } = await sleeper();
    const older = ['sleep', `${argv[1]}1`];
    const pid = await startedElsewhere(older);
    await writeFile(pidFile, JSON.stringify({ pid, argv: older, startTicks: await startTicksOf(pid) }));
    vi.spyOn(console, 'error').mockImplementation(() => {});

    const daemon = await started({ name: 'sleeper', argv, pidFile });
    expect(daemon.adopted).toBe(false);
    expect(await pidsRunning(older)).toEqual([]);
    expect(await pidsRunning(argv)).toEqual([daemon.pid]);
  });

  it('restarts a process killed from outside, with a new pid in the pid file, and logs how it ended', async () => {
    const { argv, pidFile } = await sleeper();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const daemon = await started({ name: 'dnsmasq for vwlan1a2b', argv, pidFile, restartDelayMs: 10 });
    const first = daemon.pid;

    process.kill(first, 'SIGKILL');
    await eventually(() => daemon.pid !== first);
    expect(await pidsRunning(argv)).toEqual([daemon.pid]);
    expect(JSON.parse(await readFile(pidFile, 'utf8'))).toMatchObject({ pid: daemon.pid, startTicks: await startTicksOf(daemon.pid) });
    expect(errors).toHaveBeenCalledWith(`dnsmasq for vwlan1a2b (pid ${first}) was ended by SIGKILL; restarting it in 0.01 s`);

    await daemon.stop();
    await sleep(50);
    expect(await pidsRunning(argv)).toEqual([]);
  });
});

describe('stopRecorded', () => {
  it('stops the live process a pid file records and removes the pid file', async () => {
    const { argv, pidFile } = await sleeper();
    const pid = await startedElsewhere(argv);
    await writeFile(pidFile, JSON.stringify({ pid, argv, startTicks: await startTicksOf(pid) }));

    expect(await stopRecorded(pidFile, 500)).toBe(true);
    expect(await pidsRunning(argv)).toEqual([]);
    expect(await fileExists(pidFile)).toBe(false);
  });

  it('answers false, stopping nothing, for a stale or missing pid file', async () => {
    const { argv, pidFile } = await sleeper();
    const record = await live(argv, ['sleep', '302']);
    await writeFile(pidFile, JSON.stringify(record));

    expect(await stopRecorded(pidFile)).toBe(false);
    expect(await pidsRunning(argv)).toEqual([record.pid]);
    expect(await fileExists(pidFile)).toBe(false);
    expect(await stopRecorded(pidFile)).toBe(false);
  });
});

/** A record naming a process started elsewhere that runs `argv`, recorded as running `recordedArgv`. */
async function live(argv: readonly string[], recordedArgv: readonly string[]) {
  const pid = await startedElsewhere(argv);
  return { pid, argv: recordedArgv, startTicks: await startTicksOf(pid) };
}

/** The pid of a process that has ended. */
async function goneProcess(): Promise<number> {
  const child = spawn('true', [], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}
