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

/** The flags by which a test has `emulate` validate against the OpenAPI document itself: then its verdicts are the test's to check. */
const VALIDATION_FLAGS = ['--validate', '--validate-log', '--help', '-h'];

/** One line of `emulate --validate-log` about a request or an answer outside the OpenAPI document (emulator/openapi-validator.ts). */
export interface OpenApiVerdict {
  kind: 'request' | 'answer';
  method: string;
  path: string;
  status: number;
  /** The rules broken, as the line names them: `body.ssid must be string`. */
  rules: string;
}

/**
 * The lines `emulate --validate` or `--validate-log` wrote to stderr about requests and answers outside
 * the OpenAPI document, in order.
 *
 * @example
 * openApiVerdicts('openapi: answer GET /api/v1/chutes 200: body[0].state must be one of "running"\n')
 * // [{ kind: 'answer', method: 'GET', path: '/api/v1/chutes', status: 200, rules: 'body[0].state must be one of "running"' }]
 */
export function openApiVerdicts(stderr: string): OpenApiVerdict[] {
  return [...stderr.matchAll(/^openapi: (request|answer) (\S+) (\S+) (\d{3})(?: refused| served)?: (.*)$/gm)].map((m) => ({
    kind: m[1] as OpenApiVerdict['kind'],
    method: m[2]!,
    path: m[3]!,
    status: Number(m[4]),
    rules: m[5]!,
  }));
}

/**
 * The check every emulator the tests start ends with (it ran with `--validate-log`): no answer broke
 * the OpenAPI document, and every request outside the document was refused by the handlers (a 4xx):
 * the document never refuses what the API takes. The tests' own assertions stay as they are.
 *
 * @throws Error listing each answer and request that fails it.
 */
function checkOpenApiVerdicts(what: string, stderr: string): void {
  const failures = openApiVerdicts(stderr).flatMap((verdict) => {
    const line = `${verdict.method} ${verdict.path} ${verdict.status}: ${verdict.rules}`;
    if (verdict.kind === 'answer') return [`an answer breaks the document: ${line}`];
    return verdict.status >= 400 && verdict.status < 500 ? [] : [`the document refuses a request the API took: ${line}`];
  });
  if (failures.length > 0) throw new Error(`${what} (--validate-log), against dist/openapi.json:\n  ${failures.join('\n  ')}`);
}

export interface Started {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /**
   * Stops the process (by its pid) and waits for it to exit; calling it again waits for the same exit.
   * For an `emulate` the test did not have validate itself, it then rejects when an answer broke the
   * OpenAPI document or the document refused a request the API took (see `checkOpenApiVerdicts`).
   */
  stop(): Promise<void>;
}

/**
 * Starts `chutebox <args>` and waits for its `listening on <url>` line. An `emulate` runs with
 * `--validate-log` unless `args` has a validation flag of its own, and its `stop()` checks what it
 * logged (`checkOpenApiVerdicts`). `cli` runs another copy of the
 * built CLI (default: this checkout's dist/chutebox.mjs, on this Node), or `{ command }` an executable
 * (the launcher, dist/chutebox).
 *
 * @example
 * const server = await startChutebox(['emulate', '--port', '0']);
 * await fetch(`${server.url}/api/v1/info/hardware`);
 * await server.stop();
 */
export function startChutebox(args: string[], env: NodeJS.ProcessEnv = process.env, cli: string | { command: string } = CLI): Promise<Started> {
  // Every emulator a test starts checks what it is asked and answers against the OpenAPI document, unless the test validates itself.
  const checked = args[0] === 'emulate' && !args.some((arg) => VALIDATION_FLAGS.includes(arg));
  const argsRun = checked ? [...args, '--validate-log'] : args;
  const [command, argv] = typeof cli === 'string' ? [process.execPath, [cli, ...argsRun]] : [cli.command, argsRun];
  const child = spawn(command, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stderr = '';
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
            }).then(() => {
              if (checked) checkOpenApiVerdicts(`chutebox ${args.join(' ')}`, stderr);
            })),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onData(chunk);
    });
    child.once('exit', (code) => fail(new Error(`chutebox ${args.join(' ')} exited with ${code}:\n${output}`)));
  });
}

/**
 * Starts chutebox processes for the tests of a file (or of a describe block) and stops every one of them
 * after those tests. The returned `start(args, env = CLEAN_ENV, cli)` is `startChutebox` with that clean-up.
 * vitest runs afterAll hooks last-registered-first, so call it after registering the clean-up of what the
 * servers use (a temp dir, a container engine): the servers then stop before that goes.
 *
 * @example
 * const start = useChutebox();
 * const emulate = (scenario: string) => start(['emulate', '--port', '0', '--no-auth', '--scenario', scenario]);
 */
export function useChutebox(): (args: string[], env?: NodeJS.ProcessEnv, cli?: string | { command: string }) => Promise<Started> {
  const started: Started[] = [];
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });
  return async (args, env = CLEAN_ENV, cli = CLI) => {
    const server = await startChutebox(args, env, cli);
    started.push(server);
    return server;
  };
}
