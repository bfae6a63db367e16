import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

/** The built CLI; `npm test` builds it before vitest runs. */
export const CLI = fileURLToPath(new URL('../../dist/chutebox.mjs', import.meta.url));

/** Only PATH from the test runner: no CHUTEBOX_* setting of the developer's shell changes what is served. */
export const CLEAN_ENV = Object.freeze({ PATH: process.env.PATH ?? '/usr/bin:/bin' });

/**
 * The arguments of `chutebox serve` for a test: on this machine's loopback, any free port, with its
 * own state dir and engine socket, then `extra`.
 *
 * @example
 * await start(serveArgs(stateDir, engine.socket, ['--container-network', 'none']));
 */
export function serveArgs(stateDir: string, dockerSocket: string, extra: readonly string[] = []): string[] {
  return ['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, '--docker-socket', dockerSocket, ...extra];
}

export interface Started {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** Stops the process (by its pid) and waits for it to exit; calling it again waits for the same exit. */
  stop(): Promise<void>;
}

/**
 * Starts `chutebox <args>` and waits for its `listening on <url>` line. `cli` runs another copy of the
 * built CLI (default: this checkout's dist/chutebox.mjs, on this Node), or `{ command }` an executable
 * (the launcher, dist/chutebox).
 *
 * @example
 * const server = await startChutebox(['emulate', '--port', '0']);
 * await fetch(`${server.url}/api/v1/info/hardware`);
 * await server.stop();
 */
export function startChutebox(args: string[], env: NodeJS.ProcessEnv = process.env, cli: string | { command: string } = CLI): Promise<Started> {
  const [command, argv] = typeof cli === 'string' ? [process.execPath, [cli, ...args]] : [cli.command, args];
  const child = spawn(command, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stopping: Promise<void> | undefined;
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
            (stopping ??= new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once('exit', () => done());
              process.kill(child.pid!, 'SIGTERM');
            })),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`chutebox ${args.join(' ')} exited with ${code}:\n${output}`)));
  });
}

/**
 * Starts chutebox processes for the tests of a file (or of a describe block) and stops every one of them
 * after those tests. The returned `start(args, env = CLEAN_ENV)` is `startChutebox` with that clean-up.
 * vitest runs afterAll hooks last-registered-first, so call it after registering the clean-up of what the
 * servers use (a temp dir, a container engine): the servers then stop before that goes.
 *
 * @example
 * const start = useChutebox();
 * const emulate = (scenario: string) => start(['emulate', '--port', '0', '--no-auth', '--scenario', scenario]);
 */
export function useChutebox(): (args: string[], env?: NodeJS.ProcessEnv) => Promise<Started> {
  const started: Started[] = [];
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });
  return async (args, env = CLEAN_ENV) => {
    const server = await startChutebox(args, env);
    started.push(server);
    return server;
  };
}
