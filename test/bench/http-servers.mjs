// The servers that test/bench/http.mjs measures: chutebox (emulate, serve) and the baselines, each
// started as its own process on 127.0.0.1 with a clean environment.
import { mkdir, truncate } from 'node:fs/promises';
import path from 'node:path';
import esbuild from 'esbuild';
import { baselineCommand, chuteboxCommand, launcherHeapFlags, root, startServer, tempDir } from './http-procs.mjs';
import { writeChuteState, writeMachine, writeTools } from './http-serve-state.mjs';

/**
 * What every server of the run shares, in one temp dir: the stand-in tools, the passwd, settings
 * and lease files. Answers `{ dir, tools, machine, newStateDir(withChute) }`.
 */
export async function benchMachine() {
  const dir = await tempDir();
  const tools = await writeTools(path.join(dir));
  const machine = await writeMachine(dir);
  let states = 0;
  /** A fresh state dir, empty or holding the chute of test/bench/http-serve-state.mjs. */
  async function newStateDir(withChute) {
    const stateDir = path.join(dir, `state-${++states}`);
    if (withChute) await writeChuteState(stateDir, machine.leases);
    else await mkdir(stateDir, { mode: 0o700 });
    return stateDir;
  }
  return { dir, tools, machine, newStateDir };
}

/** The arguments of `chutebox emulate` (default scenario) on 127.0.0.1:`port`, with or without auth, its network living or `still`. */
export function emulateArgs(m, { auth = false, port = 0, still = false } = {}) {
  return [
    'emulate',
    '--scenario',
    'default',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--settings',
    m.machine.settings,
    ...(auth ? [] : ['--no-auth']),
    ...(still ? ['--still'] : []),
  ];
}

/**
 * The arguments of `chutebox serve` on 127.0.0.1:`port` with `stateDir`, no container engine (a socket
 * path that does not exist), and the stand-in tools, passwd and settings of `m`.
 */
export function serveArgs(m, stateDir, { port = 0 } = {}) {
  return [
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--state-dir',
    stateDir,
    '--docker-socket',
    path.join(m.dir, 'no-docker.sock'),
    '--iw',
    m.tools.iw,
    '--hostapd-cli',
    m.tools.hostapdCli,
    '--passwd-file',
    m.machine.passwd,
    '--settings',
    m.machine.settings,
  ];
}

/** Starts `chutebox emulate`. */
export const startEmulate = (m, options) =>
  startServer(
    `emulate${options?.auth ? '' : ' --no-auth'}${options?.still ? ' --still' : ''}`,
    chuteboxCommand(emulateArgs(m, options)),
    options?.env === undefined ? {} : { env: options.env },
  );

/** Starts `chutebox serve` on a fresh state dir, empty or holding the chute. */
export async function startServe(m, { withChute = false, env } = {}) {
  return startServer('serve', chuteboxCommand(serveArgs(m, await m.newStateDir(withChute))), env === undefined ? {} : { env });
}

/** The baseline command lines: bare node:http or one-route Hono answering from `answersFile`, with Node's `options`. */
export const bareArgs = (answersFile, port = 0, options = []) => baselineCommand('baseline-node.mjs', [answersFile, String(port)], options);
export const honoArgs = (answersFile, port = 0, options = []) => baselineCommand('baseline-hono.mjs', [answersFile, String(port)], options);

/**
 * Node's option that makes a baseline keep one object of the shape of Node's tick objects, as
 * chutebox's `listen` does (runtime/http/tick-shape.ts, decision 0038): without it, a baseline that
 * idled between rounds could fall into the state where `process.nextTick` defines its keys through
 * V8's runtime, and answer a sixth fewer requests a second (a bare node:http process seen at 51k
 * against 59k), which flattered chutebox's ratios. Built from the runtime's own module, handed to
 * Node as a `data:` URL.
 */
async function tickShapeOption() {
  tickShapeImport ??= esbuild
    .build({
      stdin: { contents: "import { keepTickShape } from './runtime/http/tick-shape.ts'; keepTickShape();", resolveDir: root, loader: 'ts' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    })
    .then((built) => `data:text/javascript;base64,${Buffer.from(built.outputFiles[0].contents).toString('base64')}`);
  return ['--import', await tickShapeImport];
}
let tickShapeImport;

/** Starts bare node:http answering from `answersFile` (keeping the tick shape, see `tickShapeOption`). */
export const startBare = async (answersFile) => startServer('bare node:http', bareArgs(answersFile, 0, await tickShapeOption()));
/** Starts the one-route Hono app answering from `answersFile` (keeping the tick shape, see `tickShapeOption`). */
export const startHono = async (answersFile) => startServer('hono one-route', honoArgs(answersFile, 0, await tickShapeOption()));
/**
 * Starts the one-route Hono app with the heap bound that the launcher gives chutebox on this machine
 * (with its 1 MiB young generation, V8 scavenges about every 100 requests of GET features; with
 * Node's default, about every 600): what the bare framework does under chutebox's memory budget.
 */
export const startHonoBounded = async (answersFile) =>
  startServer("hono one-route, chutebox's heap bound", honoArgs(answersFile, 0, [...launcherHeapFlags(), ...(await tickShapeOption())]));

/** Logs in to an emulator with auth as paradrop (empty password); answers the token. */
export async function login(url) {
  const res = await fetch(`${url}/api/v1/auth/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'paradrop', password: '' }),
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`POST /api/v1/auth/local answered ${res.status}: ${body}`);
  return JSON.parse(body).token;
}

/** Empties the iw stand-in's run log. */
export const resetIwRuns = (m) => truncate(m.tools.iwRuns, 0);
