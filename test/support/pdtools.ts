import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Debian's Python, with pdtools' dependencies from Debian's packages (the `python3` on PATH may be another one). */
export const DEBIAN_PYTHON = '/usr/bin/python3';

/** ParaDrop's pdtools source at c910fd5 (tools/pdtools/pdtools), vendored with its LICENSE. */
export const PDTOOLS_SOURCE = fileURLToPath(new URL('../../fixtures/pdtools', import.meta.url));

/** Runs pdtools from PDTOOLS_SOURCE and reports each HTTP answer it gets on stderr. */
const RUNNER = fileURLToPath(new URL('./pdtools-run.py', import.meta.url));

/** The Python modules pdtools imports, and the Debian package of each. */
const MODULES: Record<string, string> = {
  click: 'python3-click',
  requests: 'python3-requests',
  yaml: 'python3-yaml',
  websocket: 'python3-websocket',
  arrow: 'python3-arrow',
  appdirs: 'python3-appdirs',
  git: 'python3-git',
  jsonschema: 'python3-jsonschema',
  six: 'python3-six',
  pkg_resources: 'python3-pkg-resources',
};

/** Why pdtools cannot run here, or null when it can. */
function pdtoolsUnavailable(): string | null {
  if (!existsSync(DEBIAN_PYTHON)) return `${DEBIAN_PYTHON} is missing (apt-get install -y python3)`;
  const missing = Object.entries(MODULES).filter(
    ([module]) => spawnSync(DEBIAN_PYTHON, ['-c', `import ${module}`], { stdio: 'ignore', timeout: 10_000 }).status !== 0,
  );
  if (missing.length === 0) return null;
  return `Python modules ${missing.map(([module]) => module).join(', ')} are missing (apt-get install -y ${missing.map(([, pkg]) => pkg).join(' ')})`;
}

/**
 * Whether a test file's pdtools part is skipped: when Debian's Python or pdtools' dependencies are
 * missing, with the reason printed, unless CHUTEBOX_REQUIRE_PDTOOLS is set (as in CI): then a failure.
 */
export function skipWithoutPdtools(file: string): { skipped: boolean; note: string } {
  const unavailable = pdtoolsUnavailable();
  const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_PDTOOLS;
  if (skipped) console.warn(`${file}: pdtools skipped: ${unavailable}; set CHUTEBOX_REQUIRE_PDTOOLS=1 to make this a failure`);
  return { skipped, note: skipped ? ` (skipped: ${unavailable})` : '' };
}

/** How one pdtools run ended. */
export interface PdtoolsRun {
  /** Exit code; null when our timeout ended it. */
  code: number | null;
  stdout: string;
  /** pdtools' own stderr, without the runner's answer lines. */
  stderr: string;
  /** The status of each HTTP answer and websocket handshake (101 when taken), e.g. `404 GET http://…/api/v1/audio/info`. */
  answers: { status: number; request: string }[];
}

/** The names of the `pdtools node` commands, as its click group lists them. */
export function pdtoolsNodeCommands(): string[] {
  const listed = spawnSync(DEBIAN_PYTHON, [RUNNER, PDTOOLS_SOURCE, '--list'], { encoding: 'utf8', timeout: 30_000 });
  if (listed.status !== 0) throw new Error(`pdtools-run.py --list failed: ${listed.stderr}`);
  return listed.stdout.split('\n').filter(Boolean);
}

/** How `runPdtools` runs a command. */
export interface PdtoolsOptions {
  env: NodeJS.ProcessEnv;
  /** What pdtools reads on its standard input; on a terminal, a line typed at each prompt. */
  stdin?: string;
  /** Runs pdtools on a pseudo-terminal, as at a user's terminal (its stdin and stdout; stderr stays a pipe). */
  terminal?: boolean;
  /** When pdtools is killed (by its pid): the streaming commands never end by themselves. */
  timeoutMs: number;
  /** What happens on the device once pdtools' websocket is open (a streaming command then prints it). */
  whenOpen?: () => Promise<unknown>;
  /** The network namespace pdtools runs in (a router's, to reach its loopback); the test's own by default. */
  netns?: string;
}

/**
 * Runs `pdtools ARGS` with `env` (on a terminal with `terminal`), writes `stdin` to it, runs
 * `whenOpen` once its websocket is open, and kills it after `timeoutMs`.
 */
export function runPdtools(args: readonly string[], options: PdtoolsOptions): Promise<PdtoolsRun> {
  return new Promise((resolve, reject) => {
    // Unbuffered (-u), as pdtools writes to a terminal: a streaming command's lines are read before it is killed.
    const python = [DEBIAN_PYTHON, '-u', RUNNER, PDTOOLS_SOURCE, ...(options.terminal ? ['--terminal'] : []), ...args];
    // `ip netns exec` execs the program in place: the pid killed is pdtools' own.
    const [command, ...argv] = options.netns === undefined ? python : ['ip', 'netns', 'exec', options.netns, ...python];
    const child = spawn(command!, argv, { env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    /** What `whenOpen` did: null, or how it failed. */
    let happened: Promise<unknown> | undefined;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (happened === undefined && options.whenOpen !== undefined && /^pdtools-answer 101 /m.test(stderr)) {
        happened = options.whenOpen().then(
          () => null,
          (error: unknown) => error,
        );
      }
    });
    child.stdin.end(options.stdin ?? '');
    const timer = setTimeout(() => process.kill(child.pid!, 'SIGKILL'), options.timeoutMs);
    child.once('error', reject);
    child.once('close', async (code) => {
      clearTimeout(timer);
      const failed = await happened;
      if (failed != null) return reject(failed);
      const answers = [...stderr.matchAll(/^pdtools-answer (\S+) (.*)$/gm)].map((m) => ({ status: Number(m[1]) || 0, request: m[2]! }));
      resolve({ code, stdout, stderr: stderr.replace(/^pdtools-answer .*\n/gm, ''), answers });
    });
  });
}
