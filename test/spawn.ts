import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI; `npm test` builds it before vitest runs. */
export const CLI = fileURLToPath(new URL('../dist/chutebox.mjs', import.meta.url));

export interface Started {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** Stops the process (by its pid) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `chutebox <args>` and waits for its `listening on <url>` line. `cli` runs another copy of the
 * built CLI (default: this checkout's dist/chutebox.mjs).
 *
 * @example
 * const server = await startChutebox(['emulate', '--port', '0']);
 * await fetch(`${server.url}/api/v1/info/hardware`);
 * await server.stop();
 */
export function startChutebox(args: string[], env: NodeJS.ProcessEnv = process.env, cli: string = CLI): Promise<Started> {
  const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`chutebox ${args.join(' ')} did not start:\n${output}`)), 15_000);
    function fail(error: Error) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    }
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          child,
          output: () => output,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once('exit', () => done());
              process.kill(child.pid!, 'SIGTERM');
            }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`chutebox ${args.join(' ')} exited with ${code}:\n${output}`)));
  });
}
