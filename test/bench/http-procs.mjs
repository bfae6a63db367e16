// Processes and temp dirs of test/bench/http.mjs: how chutebox and the baseline servers are started,
// stopped by pid, and cleaned up at the end (also on an error or Ctrl-C).
import { spawn, spawnSync } from 'node:child_process';
import { access, constants, mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root folder. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The folder of the bench scripts (the baseline servers live here). */
const benchDir = path.join(root, 'test/bench');

/**
 * The command line that runs chutebox with `args`: the one place to change when chutebox gets
 * another launcher.
 *
 * @example
 * chuteboxCommand(['emulate', '--port', '0']) // ['<root>/dist/chutebox', 'emulate', '--port', '0']: the launcher, as a user starts it
 */
export function chuteboxCommand(args) {
  return [path.join(root, 'dist/chutebox'), ...args];
}

/**
 * The heap flags that the launcher gives Node on this machine (decision 0018), read from the
 * launcher itself: run with `echo` as its Node, it prints the command line it would run.
 *
 * @example
 * launcherHeapFlags() // ['--max-old-space-size=256', '--max-semi-space-size=1'] on a machine of 1 GB or more
 */
export function launcherHeapFlags() {
  const printed = spawnSync(chuteboxCommand([])[0], [], {
    env: { ...CLEAN_ENV, CHUTEBOX_NODE: 'echo' },
    encoding: 'utf8',
    timeout: 5000,
    maxBuffer: 64 * 1024,
  });
  const flags =
    printed.status === 0
      ? printed.stdout
          .trim()
          .split(/\s+/)
          .filter((word) => word.startsWith('--max-'))
      : [];
  if (flags.length !== 2) throw new Error(`the launcher printed no heap flags (exit ${printed.status}): ${printed.stdout}${printed.stderr}`);
  return flags;
}

/** The command line of a baseline server script of test/bench/ (e.g. `baseline-node.mjs`), with Node's `options`. */
export function baselineCommand(script, args, options = []) {
  return [process.execPath, ...options, path.join(benchDir, script), ...args];
}

/** Only PATH: no CHUTEBOX_* setting of the developer's shell changes what is served. */
export const CLEAN_ENV = Object.freeze({ PATH: process.env.PATH ?? '/usr/bin:/bin', CHUTEBOX_NODE: process.execPath });

/** Every child process still running, by pid. */
const running = new Map();
/** Every temp dir made, removed at the end. */
const tempDirs = new Set();

/**
 * The CPUs of each side of a load run on a machine with more than one: the load generator on the
 * first, the servers on the others, so that wrk never takes a core from the server it measures
 * (left to the scheduler, a server woken on wrk's core answered 29k req/s instead of 46k).
 * `taskset` (util-linux) pins them; without it, or on one CPU, nothing is pinned.
 */
const CPUS = (() => {
  const n = os.availableParallelism();
  return n < 2 ? null : { load: '0', server: n === 2 ? '1' : `1-${n - 1}` };
})();

/** Whether `taskset` can pin a process here (looked up once, on the first pinned spawn). */
let taskset;
function canPin() {
  if (taskset === undefined) taskset = CPUS !== null && spawnSync('taskset', ['-c', CPUS.load, 'true']).status === 0;
  return taskset;
}

/** `command` run on the CPUs of `side` (`'load'` or `'server'`, see `CPUS`), when it can be pinned. */
export function pinned(side, command) {
  return canPin() ? ['taskset', '-c', CPUS[side], ...command] : command;
}

/** Starts `command` (an argv array) with a clean env and piped stdio, and keeps it for the clean-up. */
export function spawnTracked(command, { env = CLEAN_ENV, stdin = 'ignore' } = {}) {
  const [file, ...args] = command;
  const child = spawn(file, args, { env, stdio: [stdin, 'pipe', 'pipe'] });
  running.set(child.pid, child);
  child.once('exit', () => running.delete(child.pid));
  return child;
}

/** Stops a child by its pid (SIGTERM, then SIGKILL after `graceMs`) and waits for its exit. */
export function stopChild(child, graceMs = 3000) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {}
    }, graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(child.pid, 'SIGTERM');
    } catch {}
  });
}

/**
 * Starts a server (chutebox or a baseline) on the servers' CPUs and waits for its `listening on <url>` line.
 * Answers `{ url, pid, child, output(), inspector(), stop() }`.
 */
export function startServer(name, command, { env = CLEAN_ENV, timeoutMs = 15_000 } = {}) {
  const child = spawnTracked(pinned('server', command), { env });
  let output = '';
  /** The inspector's URL, when it printed one (`INSPECTED_ENV`): kept, as `output` keeps only its end. */
  let inspector = null;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`${name} did not print "listening on" within ${timeoutMs / 1000} s`), timeoutMs);
    function fail(why) {
      clearTimeout(timer);
      stopChild(child, 100);
      reject(new Error(`${why}:\n${output}`));
    }
    const onData = (chunk) => {
      output += chunk.toString();
      inspector ??= /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1] ?? null;
      if (output.length > 100_000) output = output.slice(-50_000);
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.removeListener('exit', onExit);
        resolve({ name, url: match[1], pid: child.pid, child, output: () => output, inspector: () => inspector, stop: () => stopChild(child) });
      }
    };
    const onExit = (code, signal) => fail(`${name} exited (${code ?? signal}) before listening`);
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', onExit);
  });
}

/** A fresh temp dir under os.tmpdir(), removed by `cleanUp`. */
export async function tempDir(prefix = 'chutebox-bench-') {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Removes one temp dir made by `tempDir` now. */
export async function removeTempDir(dir) {
  tempDirs.delete(dir);
  await rm(dir, { recursive: true, force: true });
}

/** Stops every child still running and removes every temp dir. */
export async function cleanUp() {
  await Promise.all([...running.values()].map((child) => stopChild(child, 1000)));
  await Promise.all([...tempDirs].map((dir) => removeTempDir(dir)));
}

/** Whether a signal stopped the run (its clean-up is under way: the errors it causes are not news). */
export let interrupted = false;

/** Cleans up on Ctrl-C or SIGTERM, then exits with 130 / 143. */
export function cleanUpOnSignals() {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ]) {
    process.once(signal, () => {
      interrupted = true;
      console.error(`\n${signal}: stopping the servers and removing the temp dirs`);
      cleanUp().finally(() => process.exit(code));
    });
  }
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A process's resident set size in bytes (VmRSS of /proc/<pid>/status). */
export async function rss(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** The environment that opens a server's inspector on a free loopback port, for `liveHeap` and `heapSnapshotSizes`. */
export const INSPECTED_ENV = Object.freeze({ ...CLEAN_ENV, NODE_OPTIONS: '--inspect=127.0.0.1:0' });

/**
 * Opens a server's inspector (the Chrome DevTools Protocol, over the URL it printed: the server must
 * run with `INSPECTED_ENV`), answers what `use(send, chunks)` answers, and closes it. `send(method,
 * params)` answers the method's result; `chunks` collects the heap snapshot chunks the server sends.
 */
async function inspecting(server, use) {
  const url = server.inspector();
  if (url === null) throw new Error(`${server.name} has no inspector: start it with INSPECTED_ENV`);
  const { WebSocket } = await import('ws');
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const chunks = [];
  const replies = new Map();
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (message.method === 'HeapProfiler.addHeapSnapshotChunk') chunks.push(message.params.chunk);
    const reply = replies.get(message.id);
    if (reply === undefined) return;
    replies.delete(message.id);
    message.error ? reply.reject(new Error(`${reply.method}: ${message.error.message}`)) : reply.resolve(message.result);
  });
  let id = 0;
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      replies.set(++id, { method, resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    return await use(send, chunks);
  } finally {
    socket.close();
  }
}

/**
 * The bytes a server's JS heap holds after a full garbage collection: what it keeps, not the garbage
 * V8 lets pile up until its next mark-compact.
 */
export function liveHeap(server) {
  return inspecting(server, async (send) => {
    await send('HeapProfiler.collectGarbage');
    return (await send('Runtime.getHeapUsage')).usedSize;
  });
}

/**
 * What a server's heap holds after a full garbage collection, split as a heap snapshot files it:
 * `{ heap, code }` (`heapSizes`). What it keeps as data is `heap - code` (`keptData`): compiled code
 * grows for minutes as the JIT optimizes more of the code that runs, up to a bound that code sets
 * (docs/decisions/0054). The snapshot costs the server 55 to 75 MB of VmRSS from then on (memory
 * the allocator keeps once the snapshot is freed): read VmRSS before it.
 */
export function heapSnapshotSizes(server) {
  return inspecting(server, async (send, chunks) => {
    await send('HeapProfiler.collectGarbage');
    await send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    return heapSizes(JSON.parse(chunks.join('')));
  });
}

/**
 * The bytes of a heap snapshot (V8's `.heapsnapshot` JSON): `heap`, the self sizes of every node
 * (the memory of buffers outside the JS heap included), and `code`, those of the nodes V8 files as
 * code (compiled functions, bytecode, and what the JIT keeps beside them: feedback, scope and
 * function infos).
 */
export function heapSizes(snapshot) {
  const { node_fields: fields, node_types: nodeTypes } = snapshot.snapshot.meta;
  const [type, size, code] = [fields.indexOf('type'), fields.indexOf('self_size'), nodeTypes[0].indexOf('code')];
  const sizes = { heap: 0, code: 0 };
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    sizes.heap += snapshot.nodes[i + size];
    if (snapshot.nodes[i + type] === code) sizes.code += snapshot.nodes[i + size];
  }
  return sizes;
}

/** What a process keeps as data, of what `heapSnapshotSizes` read: its heap less its compiled code. */
export const keptData = (sizes) => sizes.heap - sizes.code;

/** The full path of `name` on PATH, or null. */
export async function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    const file = path.join(dir, name);
    try {
      await access(file, constants.X_OK);
      return file;
    } catch {}
  }
  return null;
}
