import { spawn } from 'node:child_process';
import { HttpProblem } from '../../functions/core/problem.ts';
import { DEFAULT_TIMEOUT_MS, toolTimedOut } from './limits.ts';

/** An external program the runtime runs, and how an operator points the runtime at it. */
export interface Tool {
  /** What the program is called in messages, e.g. `iw`. */
  name: string;
  /** The executable: a name looked up on PATH (`iw`) or a path (`/usr/sbin/iw`). */
  path: string;
  /** How to set `path`, shown when it is missing, e.g. `--iw PATH or CHUTEBOX_IW`. */
  setting: string;
}

export interface RunLimits {
  /** Milliseconds before the program is killed; default 5000. */
  timeoutMs?: number;
  /** Bytes of stdout (and, separately, of stderr) before the program is killed; default 4 MiB. */
  maxOutputBytes?: number;
  /** Called once the program is spawned, with its pid (that of its process group), if it got one. */
  onSpawn?: (pid: number | undefined) => void;
}

/** How a program that ran to its end finished. */
export interface ToolResult {
  /** Exit code; null when a signal (not ours) ended it. */
  code: number | null;
  /** The signal that ended it, e.g. `SIGSEGV`; null when it exited. */
  signal: string | null;
  stdout: string;
  stderr: string;
}

export const DEFAULT_MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/**
 * Runs a program with an argument array, never through a shell, and answers how it finished: a
 * non-zero exit is the caller's to interpret. The program leads its own process group, and on a
 * timeout or too much output the whole group is killed (a script's children too). Node's `execFile`
 * cannot do that: it does not pass `detached` on, so this is built on `spawn`.
 *
 * @throws HttpProblem 503 when the executable is missing or not executable (naming the tool, its path
 *   and the setting), 504 when it runs past the timeout, 502 when it prints more than the cap.
 * @example
 * const { code, stdout, stderr } = await runTool({ name: 'iw', path: 'iw', setting: '--iw PATH' }, ['dev', 'wlan0', 'station', 'dump']);
 */
export function runTool(tool: Tool, args: readonly string[], limits: RunLimits = {}): Promise<ToolResult> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxOutputBytes = limits.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  return new Promise((resolve, reject) => {
    const child = spawn(tool.path, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, windowsHide: true });
    limits.onSpawn?.(child.pid);
    const stdout = collect(child.stdout);
    const stderr = collect(child.stderr);
    /** Why we stopped the program, when we did. */
    let stopped: HttpProblem | null = null;
    const stop = (problem: HttpProblem) => {
      stopped ??= problem;
      killGroup(child.pid);
    };
    const timer = setTimeout(() => stop(toolTimedOut(tool.name, timeoutMs)), timeoutMs);

    function collect(stream: NodeJS.ReadableStream): () => string {
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > maxOutputBytes) return stop(new HttpProblem(502, `${tool.name} printed more than ${maxOutputBytes} bytes and was stopped`));
        chunks.push(chunk);
      });
      return () => Buffer.concat(chunks).toString('utf8');
    }

    let failed = false;
    child.once('error', (error: NodeJS.ErrnoException) => {
      failed = true;
      clearTimeout(timer);
      if (error.code === 'ENOENT' || error.code === 'EACCES') {
        const where = tool.path.includes('/') ? `at ${tool.path}` : `on PATH (as ${tool.path})`;
        const problem = error.code === 'ENOENT' ? 'is not installed' : 'is not executable';
        return reject(new HttpProblem(503, `${tool.name} ${problem} ${where}; set its path with ${tool.setting}`));
      }
      reject(new HttpProblem(503, `${tool.name} (${tool.path}) cannot be run: ${error.message}`));
    });
    // 'close' comes after the exit and the end of both streams (and may follow a spawn error).
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (failed) return;
      // Children of a script may still run; they are in the program's group.
      if (stopped !== null) return reject(stopped);
      resolve({ code, signal, stdout: stdout(), stderr: stderr() });
    });
  });
}

/** Kills a process group of ours that may be gone already. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group has ended
  }
}
