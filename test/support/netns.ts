import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Server } from 'node:net';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findOnPath } from './dockerd.ts';

/** How to get the programs of the network tests on Debian; `.ci/run` does this. */
export const NETWORK_INSTALL_HINT = 'apt-get install -y --no-install-recommends dnsmasq-base hostapd wpasupplicant iproute2 busybox-static';

/** The programs the network tests run. */
export const NETWORK_PROGRAMS = ['ip', 'dnsmasq', 'hostapd', 'hostapd_cli', 'wpa_supplicant', 'busybox'] as const;

/**
 * Why network namespaces with dnsmasq, hostapd and wpa_supplicant cannot be used here, or null when
 * they can: it takes root and the programs of {@link NETWORK_PROGRAMS} on PATH.
 *
 * @example
 * networkUnavailableReason() // 'not root (network namespaces need root)'
 */
export function networkUnavailableReason(): string | null {
  if (process.getuid?.() !== 0) return 'not root (network namespaces need root)';
  const missing = NETWORK_PROGRAMS.filter((program) => findOnPath(program) === null);
  if (missing.length > 0) return `${missing.join(', ')} not on PATH (${NETWORK_INSTALL_HINT})`;
  return null;
}

/** Runs a program to its end and throws with its output when it fails. */
export function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}): ${result.stderr}`);
  return result.stdout;
}

let made = 0;

/** Two network namespaces of this test process, `<prefix>-<pid>-<n>-a` and `…-b`. */
export interface NamespacePair {
  a: string;
  b: string;
  /**
   * Links the namespaces with a new veth pair, `<stem>a` in a and `<stem>b` in b (both up), and answers
   * the two interface names. `stem` is at most 13 characters: an interface name has at most 15.
   */
  link(stem: string): { a: string; b: string };
  /** Runs a command in namespace `ns` and answers its stdout (throws when it fails). */
  exec(ns: string, command: string, args: string[]): string;
  /** Removes the veth pairs and both namespaces. Stop the processes that run in them first. */
  remove(): void;
}

/**
 * Makes two network namespaces named for this process (no other test run uses the same names), each
 * with its loopback up and IPv6 off (so that a link sends nothing until a test makes it).
 *
 * @example
 * const pair = createNamespacePair('cbnet');
 * const { a, b } = pair.link(`cb${process.pid}d`);
 * pair.exec(pair.a, 'ip', ['addr', 'add', '10.99.0.1/24', 'dev', a]);
 * pair.remove();
 */
export function createNamespacePair(prefix: string): NamespacePair {
  const base = `${prefix}-${process.pid}-${made++}`;
  const namespaces = { a: `${base}-a`, b: `${base}-b` };
  const links: string[] = [];
  const created: string[] = [];
  const exec = (ns: string, command: string, args: string[]) => run('ip', ['netns', 'exec', ns, command, ...args]);
  const remove = () => {
    for (const link of links) spawnSync('ip', ['-n', namespaces.a, 'link', 'del', link]);
    for (const ns of created) spawnSync('ip', ['netns', 'del', ns]);
  };
  try {
    for (const ns of [namespaces.a, namespaces.b]) {
      run('ip', ['netns', 'add', ns]);
      created.push(ns);
      run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
      exec(ns, '/bin/sh', ['-c', 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6 && echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6']);
    }
  } catch (error) {
    remove();
    throw error;
  }
  return {
    ...namespaces,
    exec,
    remove,
    link(stem) {
      if (stem.length > 13) throw new Error(`interface stem ${stem} is longer than 13 characters`);
      const a = `${stem}a`;
      const b = `${stem}b`;
      run('ip', ['link', 'add', a, 'netns', namespaces.a, 'type', 'veth', 'peer', 'name', b, 'netns', namespaces.b]);
      links.push(a);
      run('ip', ['-n', namespaces.a, 'link', 'set', a, 'up']);
      run('ip', ['-n', namespaces.b, 'link', 'set', b, 'up']);
      return { a, b };
    },
  };
}

/**
 * The processes whose command line mentions `text`, by pid.
 *
 * @example
 * await processesWith('--interface=vwlan4dfe') // [15270]: the dnsmasq of that interface
 */
export async function processesWith(text: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(text)) pids.push(Number(entry));
  }
  return pids;
}

/** A long-running program of a test, started in a network namespace. */
export interface Daemon {
  pid: number;
  /** What it printed so far (stdout and stderr, from its log file). */
  output(): Promise<string>;
  /** Whether it has exited, and how. */
  exited(): string | null;
  /** Stops it by its pid (SIGTERM, then SIGKILL after 10 s) and waits for its exit. */
  stop(): Promise<void>;
}

/**
 * Starts `command args` in namespace `ns` with its output going to `logFile`. `ip netns exec` execs
 * the program in place, so the pid is the program's own.
 *
 * @example
 * const dnsmasq = startDaemon(pair.a, 'dnsmasq', ['--no-daemon', …], path.join(dir, 'dnsmasq.log'));
 * await dnsmasq.stop();
 */
export function startDaemon(ns: string, command: string, args: string[], logFile: string): Daemon {
  const log = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn('ip', ['netns', 'exec', ns, command, ...args], { stdio: ['ignore', log, log] });
  } finally {
    closeSync(log);
  }
  let exit: string | null = null;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = signal ?? `exit ${code}`;
      resolve();
    });
    child.once('error', (error) => {
      exit = error.message;
      resolve();
    });
  });
  return {
    pid: child.pid ?? -1,
    output: () => readFile(logFile, 'utf8').catch(() => ''),
    exited: () => exit,
    async stop() {
      if (exit !== null || child.pid === undefined) return;
      process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => exit === null && child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Waits until `check` answers true, trying every 100 ms; throws naming `what` (and `details()`) after
 * `deadlineMs`. For readiness, not for assertions.
 */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  deadlineMs = 20_000,
  details: () => Promise<string> = async () => '',
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${deadlineMs / 1000} s\n${await details()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A request to the serve that runs in namespace `ns`, made from inside it (its loopback is its own,
 * where serve without a password answers); a JSON body is decoded.
 */
export async function apiIn<T = unknown>(ns: string, url: string, method: string, body?: unknown): Promise<{ status: number; body: T; type: string | null }> {
  const script =
    'const [url, method, body] = process.argv.slice(1);' +
    "fetch(url, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body || undefined })" +
    ".then(async (r) => console.log(JSON.stringify({ status: r.status, type: r.headers.get('content-type'), text: await r.text() })), (e) => { console.error(e); process.exit(1); });";
  const { status, type, text } = await nodeIn<{ status: number; type: string | null; text: string }>(
    ns,
    script,
    [url, method, body === undefined ? '' : JSON.stringify(body)],
    `${method} ${url}`,
  );
  return { status, type, body: /json/.test(type ?? '') ? JSON.parse(text) : text };
}

/** Runs a Node script in namespace `ns` and answers the JSON of the last line it prints. */
export function nodeIn<T>(ns: string, script: string, args: string[], what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${what} in ${ns} failed: ${out}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!));
    });
  });
}

/**
 * A TCP socket listening on 127.0.0.1 (a free port) of namespace `ns`, handed to this process: a
 * Node in `ns` makes it and sends it over its IPC channel, then exits. Give it to a server's
 * `listen(handle)`; closing that server closes the socket.
 *
 * @example
 * const controller = await startHttpController({ apitoken: 'key', listening: await listenIn(router) });
 */
export function listenIn(ns: string): Promise<Server> {
  const script =
    "const server = require('node:net').createServer();" +
    "server.listen(0, '127.0.0.1', () => process.send('listening', server));" +
    "process.on('disconnect', () => process.exit(0));";
  return new Promise((resolve, reject) => {
    const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', script], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let err = '';
    child.stderr?.on('data', (chunk) => (err += chunk));
    child.once('message', (_message, handle) => {
      child.disconnect();
      resolve(handle as Server);
    });
    child.once('exit', (code) => reject(new Error(`listening in ${ns} failed (exit ${code}): ${err}`)));
    child.once('error', reject);
  });
}

/**
 * A station joining a lab's access point: wpa_supplicant (wired driver, 802.1X with EAP-MD5, the user
 * `chute` and the network's key as its password, as serve's hostapd of a lab link takes it) on
 * `iface` in namespace `ns`, its config and log in `dir`; resolves once it authenticated.
 */
export async function joinAsStation(ns: string, iface: string, key: string, dir: string): Promise<Daemon> {
  const conf = path.join(dir, 'wpa_supplicant.conf');
  await writeFile(conf, `ap_scan=0\nnetwork={\n\tkey_mgmt=IEEE8021X\n\teap=MD5\n\tidentity="chute"\n\tpassword="${key}"\n\teapol_flags=0\n}\n`);
  const supplicant = startDaemon(ns, 'wpa_supplicant', ['-D', 'wired', '-i', iface, '-c', conf], path.join(dir, 'wpa.log'));
  try {
    await waitUntil('wpa_supplicant authenticated', async () => (await supplicant.output()).includes('CTRL-EVENT-EAP-SUCCESS'), 30_000, supplicant.output);
  } catch (error) {
    await supplicant.stop();
    throw error;
  }
  return supplicant;
}
