import { spawn } from 'node:child_process';
import { findOnPath } from './dockerd.ts';

/** strace on PATH, or null: the tests that watch what a running process opens need it. */
export const STRACE = findOnPath('strace');

/**
 * Whether a test file that needs strace is skipped: without it, unless CHUTEBOX_REQUIRE_STRACE is set
 * (as in CI), when missing strace is a failure. Prints why when it skips.
 */
export function skipWithoutStrace(file: string): boolean {
  const skipped = STRACE === null && !process.env.CHUTEBOX_REQUIRE_STRACE;
  if (skipped) console.warn(`${file} skipped: strace is not on PATH (apt-get install -y strace); set CHUTEBOX_REQUIRE_STRACE=1 to make this a failure`);
  return skipped;
}

/**
 * Traces the file system calls of a running process (`strace -f -e trace=%file`) until `stop()`,
 * which answers every path they named.
 *
 * @example
 * const trace = await traceFiles(server.child.pid!);
 * await fetch(`${server.url}/api/v1/info/hardware`);
 * (await trace.stop()).filter((file) => file.startsWith(stateDir)) // []
 */
export async function traceFiles(pid: number): Promise<{ stop(): Promise<string[]> }> {
  const tracer = spawn(STRACE ?? 'strace', ['-f', '-qq', '-e', 'trace=%file', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  tracer.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // strace says nothing once it holds every thread (-qq); give it a moment to attach.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return {
    stop: () =>
      new Promise((resolve) => {
        // Every quoted argument, empty ones too (`statx(21, "", …)`), so that quotes pair up right.
        tracer.once('exit', () => resolve([...output.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!).filter((file) => file !== '')));
        tracer.kill('SIGINT');
      }),
  };
}
