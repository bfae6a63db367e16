import { spawnSync } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DeviceFault } from '../emulator/faults/device-fault.ts';
import type { ProvisionStatus } from '../functions/core/device/index.ts';
import { STORAGE_FULL } from '../functions/core/problem.ts';
import { installChute } from './support/chute-state.ts';
import { changeSeen, masked, problem, problemSeen, useFaultedEmulator } from './support/device-faults.ts';
import { openEvents } from './support/event-stream-client.ts';
import { callApi, changeOver, getJson } from './support/http-client.ts';
import { serveArgs, useChutebox } from './support/spawn.ts';
import { sshKey } from './support/ssh-keys.ts';
import { useTempDir } from './support/temp-dir.ts';

/*
 * The device faults below the network answer what serve answers in the same real situation: serve
 * with an engine socket that does not exist or never answers, with a controller on a closed port,
 * with its state dir on a full tmpfs; the emulator's default scenario with the fault. Each check runs
 * on both, the socket, the controller's address and such masked.
 */

const temp = useTempDir('chutebox-device-faults-');
/** The tmpfs mounts of the disk-full test, unmounted after the servers on them stopped (hooks run last-registered-first). */
const mounts: string[] = [];
afterAll(() => {
  for (const mount of mounts) spawnSync('umount', [mount]);
});
const start = useChutebox();
const emulator = useFaultedEmulator();

const CHUTE = 'hello-world';
/** What a router answers, with its host-specific parts masked. */
type Router = { url: string; masks: Record<string, string> };

/** The emulator with `fault` active, its host-specific parts as `masks` name them. */
async function emulatedWith(fault: DeviceFault, masks: Record<string, string> = {}): Promise<Router> {
  await emulator().faults.add(fault);
  return { url: emulator().url, masks };
}

/** `chutebox serve` on `stateDir` with the chute `hello-world` stored as running, its engine at `socket`. */
async function serveChute(stateDir: string, socket: string, flags: string[] = []): Promise<{ url: string }> {
  await installChute(stateDir, CHUTE, 'busybox:latest', {}, { state: 'running' });
  return start(serveArgs(stateDir, socket, flags));
}

const seen = async (router: Router, method: string, endpoint: string, body?: unknown) =>
  problemSeen(await callApi(router, method, endpoint, body), router.masks);

/** A chute's state and its log, with the engine unreachable: the stored state, a 503 for the log. */
async function checkEngineReads(router: Router): Promise<void> {
  expect(await getJson(router, `/chutes/${CHUTE}`)).toMatchObject({ name: CHUTE, state: 'running' });
  expect(await seen(router, 'GET', `/chutes/${CHUTE}/logs`)).toEqual(problem(503, 'no container engine is reachable at <socket>'));
}

/** Changes to chutes with the engine unreachable: each fails once running, and a failed install leaves no chute. */
async function checkEngineChanges(router: Router): Promise<void> {
  const failed = ['queued', 'running', 'failed: no container engine is reachable'];
  expect(changeSeen(await changeOver(router, 'POST', `/chutes/${CHUTE}/stop`))).toEqual({ action: 'stop', state: 'failed', messages: failed });
  expect(changeSeen(await changeOver(router, 'POST', '/chutes', { name: 'fresh', image: 'busybox:latest' }))).toEqual({
    action: 'install',
    state: 'failed',
    messages: failed,
  });
  expect((await callApi(router, 'GET', '/chutes/fresh')).status).toBe(404);
  expect(await getJson(router, `/chutes/${CHUTE}`)).toMatchObject({ state: 'running' });
}

describe('engine-unreachable answers as serve does without its engine', () => {
  it('serve with an engine socket that does not exist', async () => {
    const stateDir = await temp.folder('engine-missing');
    const socket = path.join(stateDir, 'docker.sock');
    const router = { ...(await serveChute(stateDir, socket)), masks: { '<socket>': socket } };
    await checkEngineReads(router);
    await checkEngineChanges(router);
  });

  it('serve with an engine socket that accepts connections and never answers: it starts, and answers the stored states', async () => {
    const stateDir = await temp.folder('engine-hung');
    const socket = path.join(stateDir, 'docker.sock');
    const hung = createNetServer((connection) => void connection.on('data', () => undefined));
    await new Promise<void>((resolve) => hung.listen(socket, resolve));
    try {
      const router = await serveChute(stateDir, socket);
      expect(await getJson(router, `/chutes/${CHUTE}`)).toMatchObject({ name: CHUTE, state: 'running' });
    } finally {
      hung.close();
    }
  });

  it('the emulator', async () => {
    const router = await emulatedWith({ device: 'engine-unreachable' }, { '<socket>': '/var/run/docker.sock' });
    await checkEngineReads(router);
    await checkEngineChanges(router);
  });
});

/** Provisioning with the controller unreachable: a 502 naming it, told as a failed delivery, nothing stored. */
async function checkProvisionUnreachable(router: Router, pdserver: string): Promise<void> {
  const events = await openEvents(router.url, '?kind=controller.delivery');
  if (!('events' in events)) throw new Error(`GET /api/v1/events answered ${events.status}`);
  try {
    const refused = 'the controller at <controller> could not be reached: connect ECONNREFUSED <address>';
    const credentials = { routerId: 'r1', apitoken: 't0k3n', pdserver, wampRouter: 'ws://controller.test/ws' };
    expect(await seen(router, 'POST', '/config/provision', credentials)).toEqual(problem(502, refused));
    const { data } = await events.next((event) => event.event === 'controller.delivery');
    expect({ ...data, error: masked(String(data.error), router.masks) }).toMatchObject({ what: 'provisioning', success: false, error: refused });
    expect(await getJson(router, '/config/provision')).toMatchObject({ provisioned: false, httpConnected: false });
  } finally {
    events.close();
  }
}

/** Telemetry with the controller unreachable: the failure in the status, the report kept for a retry. */
async function checkTelemetryUnreachable(router: Router): Promise<void> {
  await expect
    .poll(async () => (await getJson<ProvisionStatus>(router, '/config/provision')).telemetry.lastError, { timeout: 30_000, interval: 500 })
    .not.toBeNull();
  const status = await getJson<ProvisionStatus>(router, '/config/provision');
  expect(masked(status.telemetry.lastError!.message, router.masks)).toBe('the controller at <controller> could not be reached: connect ECONNREFUSED <address>');
  expect(status).toMatchObject({ provisioned: true, httpConnected: false, telemetry: { enabled: true, interval: 10, lastSuccess: null } });
  expect(status.telemetry.queued).toBeGreaterThanOrEqual(1);
}

/** Provisions the router with `pdserver`, then sends telemetry every 10 s (the shortest interval). */
async function provisionWithTelemetry(router: { url: string }, pdserver: string): Promise<void> {
  const credentials = { routerId: 'r1', apitoken: 't0k3n', pdserver, wampRouter: 'ws://controller.test/ws' };
  expect((await callApi(router, 'POST', '/config/provision', credentials)).status).toBe(200);
  const config = await getJson<Record<string, unknown>>(router, '/config/hostconfig');
  expect(changeSeen(await changeOver(router, 'PUT', '/config/hostconfig', { ...config, telemetry: { enabled: true, interval: 10 } })).state).toBe('succeeded');
}

describe('controller-unreachable answers as serve does with its controller on a closed port', () => {
  it('provisioning, on serve and the emulator', async () => {
    const port = await closedPort();
    const served = await start(serveArgs(await temp.folder('controller'), path.join(temp.path(), 'no-engine.sock')));
    await checkProvisionUnreachable(
      { url: served.url, masks: { '<controller>': `http://127.0.0.1:${port}`, '<address>': `127.0.0.1:${port}` } },
      `http://127.0.0.1:${port}`,
    );
    const masks = { '<controller>': 'http://controller.test:8000', '<address>': 'controller.test:8000' };
    await checkProvisionUnreachable(await emulatedWith({ device: 'controller-unreachable' }, masks), 'http://controller.test:8000');
  });

  it('telemetry, on serve whose controller went away and the emulator, side by side', async () => {
    const serveSide = async () => {
      const controller = await liveController();
      const served = await start(serveArgs(await temp.folder('telemetry'), path.join(temp.path(), 'no-engine.sock')));
      await provisionWithTelemetry(served, controller.url);
      await controller.close();
      await checkTelemetryUnreachable({ url: served.url, masks: { '<controller>': controller.url, '<address>': controller.url.slice('http://'.length) } });
    };
    const emulatorSide = async () => {
      await provisionWithTelemetry(emulator(), 'http://controller.test:8000');
      const router = await emulatedWith(
        { device: 'controller-unreachable' },
        { '<controller>': 'http://controller.test:8000', '<address>': 'controller.test:8000' },
      );
      await checkTelemetryUnreachable(router);
    };
    await Promise.all([serveSide(), emulatorSide()]);
  }, 60_000);
});

/** Every write refused with a 507 on a full storage, and nothing changed: no change, no key, no provisioning. */
async function checkDiskFull(router: Router, pdserver: string): Promise<void> {
  const full = problem(507, STORAGE_FULL);
  const keys = await getJson(router, '/config/sshKeys/paradrop');
  const config = await getJson(router, '/config/hostconfig');
  expect(await seen(router, 'POST', '/config/sshKeys/paradrop', { key: sshKey('ed25519') })).toEqual(full);
  expect(await seen(router, 'POST', '/config/provision', { routerId: 'r1', apitoken: 't0k3n', pdserver, wampRouter: 'ws://controller.test/ws' })).toEqual(full);
  expect(await seen(router, 'POST', `/chutes/${CHUTE}/stop`)).toEqual(full);
  expect(await seen(router, 'PUT', '/config/hostconfig', config)).toEqual(full);
  expect(await seen(router, 'PUT', '/config/pdconf')).toEqual(full);
  expect(await getJson(router, '/changes')).toEqual([]);
  expect(await getJson(router, '/config/sshKeys/paradrop')).toEqual(keys);
  expect(await getJson(router, '/config/provision')).toMatchObject({ provisioned: false });
}

const notRoot = process.getuid?.() !== 0;
const diskSkipped = notRoot && !process.env.CHUTEBOX_REQUIRE_NETWORK;
if (diskSkipped)
  console.warn(
    'test/device-faults-device.test.ts: disk-full on serve is skipped: mounting a tmpfs needs root; set CHUTEBOX_REQUIRE_NETWORK=1 to make this a failure',
  );

describe('disk-full answers as serve does with its state dir on a full file system', () => {
  it.skipIf(diskSkipped)('serve on a full tmpfs', async () => {
    if (notRoot) throw new Error('mounting a tmpfs needs root');
    const dir = await temp.folder('disk');
    const stateDir = path.join(dir, 'state');
    await mkdir(stateDir);
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', stateDir], { encoding: 'utf8' });
    expect(mounted.status, mounted.stderr).toBe(0);
    mounts.push(stateDir);
    const home = path.join(stateDir, 'home', 'paradrop');
    await mkdir(home, { recursive: true });
    await writeFile(path.join(dir, 'passwd'), `paradrop:x:${process.getuid!()}:${process.getgid!()}:ParaDrop:${home}:/bin/sh\n`);
    const controller = await liveController();
    try {
      const served = await serveChute(stateDir, path.join(dir, 'no-engine.sock'), ['--passwd-file', path.join(dir, 'passwd')]);
      // What serve writes at start is written; then the file system is filled up.
      await expect.poll(async () => (await callApi(served, 'GET', '/config/pdconf')).status).toBe(200);
      await writeFile(path.join(stateDir, 'filler'), Buffer.alloc(2 * 1024 * 1024)).catch((error: NodeJS.ErrnoException) => expect(error.code).toBe('ENOSPC'));
      const files = async () =>
        (await readdir(stateDir, { recursive: true, withFileTypes: true }))
          .filter((entry) => !entry.isDirectory())
          .map((entry) => path.join(entry.parentPath, entry.name));
      const before = await files();
      await checkDiskFull({ url: served.url, masks: {} }, controller.url);
      // Nothing half-written: no file is new (no temporary file of an atomic write is left).
      expect(await files()).toEqual(before);
    } finally {
      await controller.close();
    }
  });

  it('the emulator', async () => {
    await checkDiskFull(await emulatedWith({ device: 'disk-full' }), 'http://controller.test:8000');
  });
});

/** A port of 127.0.0.1 that was free a moment ago and has nothing listening: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A controller that accepts every check and report until closed (then its port refuses). */
async function liveController(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const router = /\/api\/routers\/([^/]+)/.exec(request.url ?? '')?.[1];
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(request.method === 'GET' ? { _id: router } : {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
