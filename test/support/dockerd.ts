import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, openSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';

/** How to get what a real engine needs on Debian; `.ci/run` does this. */
export const INSTALL_HINT = 'apt-get install -y --no-install-recommends docker.io busybox-static';

/** How long dockerd may take to answer `/_ping` (it needs about 3 s) and to shut down. */
const START_DEADLINE_MS = 30_000;
const STOP_DEADLINE_MS = 30_000;

/** The busybox applets the test image links; a container runs `sleep`, `sh` is there to look inside. */
const APPLETS = ['sh', 'sleep'];

export interface Dockerd {
  /** The temp folder that holds everything of this engine: socket, data, state, `dockerd.log`. */
  dir: string;
  /** The engine's API socket, `<dir>/docker.sock`. */
  socket: string;
  /** A client of this engine. */
  docker: Docker;
  /**
   * Imports a one-layer image holding only a static busybox and its `sh` and `sleep` applets, without
   * a registry, and answers its reference. `cmd` becomes the image's `CMD` (none by default).
   *
   * @example
   * await engine.importBusybox('chutebox-test', 'busybox') // 'chutebox-test:busybox'
   * await engine.importBusybox('chutebox-test', 'sleeper', { cmd: ['sleep', '3600'] })
   */
  importBusybox(repo: string, tag: string, options?: { cmd?: string[] }): Promise<string>;
  /** Every container of this engine labelled as the chute's (`io.chutebox.chute=<chute>`), inspected. */
  chuteContainers(chute: string): Promise<Docker.ContainerInspectInfo[]>;
  /** Removes every container of this engine, stops dockerd by its pid and removes `dir`. */
  stop(): Promise<void>;
}

/** The absolute path of an executable on PATH, or null. */
export function findOnPath(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return null;
}

/**
 * Why a real Docker Engine cannot be started here, or null when it can: dockerd and a statically
 * linked busybox (an imported image has no C library) must be on PATH.
 *
 * @example
 * dockerUnavailableReason() // 'dockerd is not on PATH (apt-get install …)'
 */
export function dockerUnavailableReason(): string | null {
  if (findOnPath('dockerd') === null) return `dockerd is not on PATH (${INSTALL_HINT})`;
  const busybox = findOnPath('busybox');
  if (busybox === null) return `busybox is not on PATH (${INSTALL_HINT})`;
  if (!isStaticallyLinked(busybox)) return `${busybox} is dynamically linked and cannot run in an image without a C library (${INSTALL_HINT})`;
  return null;
}

/** True for an ELF executable without a program interpreter (PT_INTERP), that is, without a dynamic loader. */
function isStaticallyLinked(file: string): boolean {
  const elf = readFileSync(file);
  if (elf.length < 64 || elf.readUInt32BE(0) !== 0x7f454c46) return false;
  const is64 = elf[4] === 2;
  const le = elf[5] === 1;
  const u16 = (at: number) => (le ? elf.readUInt16LE(at) : elf.readUInt16BE(at));
  const u32 = (at: number) => (le ? elf.readUInt32LE(at) : elf.readUInt32BE(at));
  const programHeaders = is64 ? Number(le ? elf.readBigUInt64LE(0x20) : elf.readBigUInt64BE(0x20)) : u32(0x1c);
  const entrySize = u16(is64 ? 0x36 : 0x2a);
  const count = u16(is64 ? 0x38 : 0x2c);
  const PT_INTERP = 3;
  for (let i = 0; i < count; i++) if (u32(programHeaders + i * entrySize) === PT_INTERP) return false;
  return true;
}

/**
 * Starts a private Docker Engine with everything in a new temp folder, and waits until its socket
 * answers `/_ping`. `--iptables=false --bridge=none --ip-forward=false` keep it from touching the
 * host's firewall, bridges and IPv4 forwarding; its own `--config-file` keeps the host's
 * /etc/docker/daemon.json out and its trust key in the temp folder. Containers must run with
 * `HostConfig.NetworkMode: "none"`.
 *
 * With `netns`, dockerd runs in that network namespace (a router namespace of a test), and so do its
 * containers. Throws (after cleaning up) when dockerd or busybox is missing or dockerd does not come up.
 *
 * @example
 * const engine = await startDockerd();
 * const image = await engine.importBusybox('chutebox-test', 'busybox');
 * await engine.stop();
 */
export async function startDockerd(options: { netns?: string } = {}): Promise<Dockerd> {
  const unavailable = dockerUnavailableReason();
  if (unavailable !== null) throw new Error(`no Docker Engine: ${unavailable}`);

  const dir = await mkdtemp(path.join(os.tmpdir(), 'chutebox-dockerd-'));
  const socket = path.join(dir, 'docker.sock');
  const logFile = path.join(dir, 'dockerd.log');
  const configFile = path.join(dir, 'daemon.json');
  await writeFile(configFile, JSON.stringify({ 'deprecated-key-path': path.join(dir, 'key.json') }));
  const args = [
    '--config-file',
    configFile,
    '-H',
    `unix://${socket}`,
    '--data-root',
    path.join(dir, 'data'),
    '--exec-root',
    path.join(dir, 'exec'),
    '--pidfile',
    path.join(dir, 'pid'),
    '--iptables=false',
    '--bridge=none',
    '--ip-forward=false',
  ];
  const logFd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    // In a router namespace: nsenter enters its network namespace only (not `ip netns exec`, whose new mount namespace dockerd cannot run in) and execs dockerd, so the pid is dockerd's.
    child =
      options.netns === undefined
        ? spawn(findOnPath('dockerd')!, args, { stdio: ['ignore', logFd, logFd] })
        : spawn('nsenter', [`--net=/run/netns/${options.netns}`, findOnPath('dockerd')!, ...args], { stdio: ['ignore', logFd, logFd] });
  } finally {
    closeSync(logFd);
  }
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(`dockerd exited (${signal ?? `code ${code}`})`));
    child.once('error', (error) => resolve(`dockerd could not be started: ${error.message}`));
  });
  let exitReason: string | null = null;
  void exited.then((reason) => (exitReason = reason));

  const docker = new Docker({ socketPath: socket });
  const log = () => readFile(logFile, 'utf8').catch(() => '');

  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stopAndClean());
  async function stopAndClean(): Promise<void> {
    if (exitReason === null) {
      await removeAllContainers(docker);
      signal(child.pid, 'SIGTERM');
      if (!(await settlesWithin(exited, STOP_DEADLINE_MS))) {
        signal(child.pid, 'SIGKILL');
        await exited;
        await killContainerd(dir);
      }
    }
    unmountUnder(dir);
    await rm(dir, { recursive: true, force: true });
  }

  try {
    await untilPingAnswers(docker, () => exitReason);
  } catch (error) {
    const output = await log();
    await stop();
    throw new Error(`${(error as Error).message}\n--- dockerd log ---\n${output}`);
  }

  return {
    dir,
    socket,
    docker,
    stop,
    async chuteContainers(chute) {
      const list = await docker.listContainers({ all: true, filters: { label: [`io.chutebox.chute=${chute}`] } });
      return Promise.all(list.map((c) => docker.getContainer(c.Id).inspect()));
    },
    async importBusybox(repo, tag, options = {}) {
      const rootfs = await mkdtemp(path.join(dir, 'rootfs-'));
      await mkdir(path.join(rootfs, 'bin'), { recursive: true });
      await copyFile(findOnPath('busybox')!, path.join(rootfs, 'bin', 'busybox'));
      for (const applet of APPLETS) await symlink('busybox', path.join(rootfs, 'bin', applet));
      const tarball = `${rootfs}.tar`;
      const tar = spawnSync('tar', ['-C', rootfs, '-cf', tarball, '.'], { encoding: 'utf8' });
      if (tar.status !== 0) throw new Error(`tar of the busybox rootfs failed: ${tar.stderr || tar.error?.message}`);
      const changes = options.cmd === undefined ? {} : { changes: `CMD ${JSON.stringify(options.cmd)}` };
      const progress = await docker.importImage(tarball, { repo, tag, ...changes });
      await new Promise<void>((resolve, reject) => docker.modem.followProgress(progress, (error) => (error ? reject(error) : resolve())));
      return `${repo}:${tag}`;
    },
  };
}

async function untilPingAnswers(docker: Docker, exitReason: () => string | null): Promise<void> {
  // dockerode's ping takes options with an abortSignal; its typings only lack the parameter.
  const ping = docker.ping.bind(docker) as unknown as (options: { abortSignal: AbortSignal }) => Promise<unknown>;
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    const reason = exitReason();
    if (reason !== null) throw new Error(reason);
    const answered = await ping({ abortSignal: AbortSignal.timeout(1000) }).then(
      () => true,
      () => false,
    );
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`dockerd did not answer /_ping within ${START_DEADLINE_MS / 1000} s`);
    await delay(100);
  }
}

/** The engine is this helper's own: whatever a test left in it goes. */
async function removeAllContainers(docker: Docker): Promise<void> {
  const containers = await docker.listContainers({ all: true }).catch(() => []);
  await Promise.all(
    containers.map((c) =>
      docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined),
    ),
  );
}

/** After a SIGKILL of dockerd, the containerd it started (its pid file is in the exec root) goes too. */
async function killContainerd(dir: string): Promise<void> {
  const pid = Number(await readFile(path.join(dir, 'exec', 'containerd', 'containerd.pid'), 'utf8').catch(() => ''));
  signal(pid, 'SIGKILL');
}

/** Sends a signal to a process of ours that may have exited already. */
export function signal(pid: number | undefined, name: NodeJS.Signals): void {
  if (pid === undefined || !Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** True when `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lazily unmounts whatever dockerd left mounted under `dir` (overlay layers, its data root), deepest first. */
export function unmountUnder(dir: string): void {
  const mountPoints = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((field): field is string => field !== undefined)
    .map((field) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))))
    .filter((mountPoint) => mountPoint === dir || mountPoint.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const mountPoint of mountPoints) spawnSync('umount', ['-l', mountPoint]);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
