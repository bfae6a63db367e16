import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRunning } from '../../test/support/processes.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { problemOf, writeScript } from '../../test/support/tool-scripts.ts';
import type { Tool } from './run.ts';
import { runToolUntil, STOP_GRACE_MS } from './run-until.ts';

const temp = useTempDir('chutebox-run-until-');

/** Writes an executable shell script and answers it as a tool. */
async function script(name: string, body: string): Promise<Tool> {
  return { name: 'probe', path: await writeScript(temp.path(), name, body), setting: '--probe PATH' };
}

describe('runToolUntil: runTool stopped with the runtime', () => {
  /** Runs a script whose `body` records a pid in `<name>.pid`; answers the run's problem, once that pid is there, and the pid. */
  async function recording(name: string, body: (pidFile: string) => string, stop: AbortSignal) {
    const pidFile = path.join(temp.path(), `${name}.pid`);
    const run = problemOf(runToolUntil(stop, await script(name, body(pidFile)), [], { timeoutMs: 60_000 }));
    await expect.poll(() => readFile(pidFile, 'utf8').catch(() => '')).toMatch(/^\d+\n$/);
    return { run, pid: Number(await readFile(pidFile, 'utf8')) };
  }

  it('answers as runTool while the runtime runs', async () => {
    const tool = await script('until-ok', 'echo fine; exit 2');
    expect(await runToolUntil(new AbortController().signal, tool, [])).toEqual({ code: 2, signal: null, stdout: 'fine\n', stderr: '' });
  });

  it('stops the program and its children with SIGTERM, and rejects with a 503 saying so', async () => {
    const stopping = new AbortController();
    const { run, pid } = await recording('stopped', (pidFile) => `sleep 300 & echo $! > ${pidFile}; wait`, stopping.signal);
    stopping.abort();
    expect(await run).toEqual({ status: 503, message: 'probe was stopped: the runtime is stopping' });
    await expect.poll(() => isRunning(pid)).toBe(false);
  });

  it('kills a child that ignores SIGTERM once the program has ended', async () => {
    const stopping = new AbortController();
    const child = (pidFile: string) => `(trap '' TERM; exec sleep 300 > /dev/null 2>&1) & echo $! > ${pidFile}; wait`;
    const { run, pid } = await recording('orphan', child, stopping.signal);
    stopping.abort();
    expect(await run).toMatchObject({ status: 503 });
    await expect.poll(() => isRunning(pid)).toBe(false);
  });

  it('kills a program that ignores SIGTERM, children too, once the grace period is over', async () => {
    const stopping = new AbortController();
    const { run, pid } = await recording('stubborn', (pidFile) => `trap '' TERM\nsleep 300 & echo $! > ${pidFile}; wait`, stopping.signal);
    stopping.abort();
    const stoppedAt = Date.now();
    expect(await run).toMatchObject({ status: 503 });
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(STOP_GRACE_MS - 50);
    await expect.poll(() => isRunning(pid)).toBe(false);
  });

  it('runs nothing once the runtime is stopping', async () => {
    const ran = path.join(temp.path(), 'ran');
    const tool = await script('never', `touch ${ran}`);
    expect(await problemOf(runToolUntil(AbortSignal.abort(), tool, []))).toEqual({ status: 503, message: 'probe was not run: the runtime is stopping' });
    await expect(readFile(ran)).rejects.toThrow(/ENOENT/);
  });
});
