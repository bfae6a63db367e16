import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { isRunning } from '../../test/support/processes.ts';
import { problemOf, writeScript } from '../../test/support/tool-scripts.ts';
import { runTool, type Tool } from './run.ts';

const temp = useTempDir('chutebox-run-tool-');

/** Writes an executable shell script and answers it as a tool. */
async function script(name: string, body: string): Promise<Tool> {
  return { name: 'probe', path: await writeScript(temp.path(), name, body), setting: '--probe PATH' };
}

describe('runTool', () => {
  it('passes each argument verbatim, without a shell, and answers exit code, stdout and stderr', async () => {
    const tool = await script('echo-args', 'for a in "$@"; do printf "<%s>\\n" "$a"; done; echo oops >&2; exit 3');
    const result = await runTool(tool, ['two words', '$(id)', '; rm -rf /', '']);
    expect(result).toEqual({ code: 3, signal: null, stdout: '<two words>\n<$(id)>\n<; rm -rf />\n<>\n', stderr: 'oops\n' });
  });

  it('answers code 0 for a program that succeeds', async () => {
    const tool = await script('ok', 'echo fine');
    expect(await runTool(tool, [])).toEqual({ code: 0, signal: null, stdout: 'fine\n', stderr: '' });
  });

  it('answers the signal that ended a program it did not stop itself', async () => {
    const tool = await script('crash', 'kill -SEGV $$');
    expect(await runTool(tool, [])).toMatchObject({ code: null, signal: 'SIGSEGV' });
  });

  it('rejects with a 503 naming the tool, its path and the setting when the executable does not exist', async () => {
    const missing = path.join(temp.path(), 'no-such-tool');
    const problem = await problemOf(runTool({ name: 'iw', path: missing, setting: '--iw PATH or CHUTEBOX_IW' }, []));
    expect(problem.status).toBe(503);
    expect(problem.message).toContain('iw is not installed');
    expect(problem.message).toContain(missing);
    expect(problem.message).toContain('--iw PATH or CHUTEBOX_IW');
  });

  it('says PATH when a bare name is not found there', async () => {
    const problem = await problemOf(runTool({ name: 'iw', path: 'chutebox-no-such-tool', setting: '--iw PATH' }, []));
    expect(problem).toMatchObject({ status: 503, message: 'iw is not installed on PATH (as chutebox-no-such-tool); set its path with --iw PATH' });
  });

  it('rejects with a 503 when the file is not executable', async () => {
    const file = path.join(temp.path(), 'not-executable');
    await writeFile(file, '#!/bin/sh\necho never\n');
    const problem = await problemOf(runTool({ name: 'iw', path: file, setting: '--iw PATH' }, []));
    expect(problem).toMatchObject({ status: 503, message: expect.stringContaining('is not executable') });
  });

  it('rejects with a 504 naming the tool when it runs past the timeout, and stops its children too', async () => {
    const pidFile = path.join(temp.path(), 'sleeper.pid');
    const tool = await script('slow', `sleep 30 & echo $! > ${pidFile}; wait`);
    const problem = await problemOf(runTool(tool, [], { timeoutMs: 300 }));
    expect(problem.status).toBe(504);
    expect(problem.message).toContain('probe did not finish within 0.3 s');
    const sleeper = Number(await readFile(pidFile, 'utf8'));
    await expect.poll(() => isRunning(sleeper)).toBe(false);
  });

  it('rejects with a 502 when the output exceeds the cap', async () => {
    const tool = await script('chatty', 'yes station');
    const problem = await problemOf(runTool(tool, [], { maxOutputBytes: 64 * 1024 }));
    expect(problem).toMatchObject({ status: 502, message: expect.stringContaining('printed more than 65536 bytes') });
  });
});
