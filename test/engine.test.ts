import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUTE_LABEL } from '../functions/core/device/index.ts';
import { startChutebox, type Started } from './support/spawn.ts';
import { dockerUnavailableReason, startDockerd, type Dockerd } from './support/dockerd.ts';

/**
 * The runtime against a real Docker Engine that this test starts (dockerd and busybox-static, which
 * `.ci/run` installs). Without them the test is skipped, unless CHUTEBOX_REQUIRE_DOCKER is set (as in
 * CI): then it fails.
 */
const unavailable = dockerUnavailableReason();
const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_DOCKER;
if (skipped) console.warn(`test/engine.test.ts skipped: ${unavailable}; set CHUTEBOX_REQUIRE_DOCKER=1 to make this a failure`);

/** Exactly the environment the server gets: no CHUTEBOX_* setting leaks in from the test runner. */
const SERVER_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

type Chute = {
  name: string;
  state: string;
  cpu: { total_usage_ns: number; percent: number | null };
  memory: { usage: number; limit: number };
  network: { rx_bytes: number; tx_bytes: number };
  pids: number;
};

describe.skipIf(skipped)(`GET /api/v1/info/telemetry on a device with a container engine${skipped ? ` (skipped: ${unavailable})` : ''}`, () => {
  let tmp: string | undefined;
  let engine: Dockerd | undefined;
  let chute: Docker.Container;
  const containers: Docker.Container[] = [];
  const servers: Started[] = [];

  async function serve(dockerSocket: string): Promise<Started> {
    const stateDir = path.join(tmp!, `state-${servers.length}`);
    const server = await startChutebox(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, '--docker-socket', dockerSocket], SERVER_ENV);
    servers.push(server);
    return server;
  }

  async function get<T>(server: Started, endpoint: string): Promise<T> {
    const res = await fetch(`${server.url}${endpoint}`);
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  }

  const chutesOf = async (server: Started) => (await get<{ chutes: Chute[] }>(server, '/api/v1/info/telemetry')).chutes;

  async function run(name: string, labels: Record<string, string>): Promise<Docker.Container> {
    const container = await engine!.docker.createContainer({
      name,
      Image: 'chutebox-test:busybox',
      Cmd: ['sleep', '600'],
      Labels: labels,
      HostConfig: { NetworkMode: 'none' },
    });
    containers.push(container);
    await container.start();
    return container;
  }

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'chutebox-engine-test-'));
    engine = await startDockerd();
    await engine.importBusybox('chutebox-test', 'busybox');
    chute = await run('chutebox-test-hello', { [CHUTE_LABEL]: 'hello' });
    await run('chutebox-test-other', { 'org.example.role': 'not-a-chute' });
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all(containers.map((container) => container.remove({ force: true }).catch(() => undefined)));
    await engine?.stop();
    if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
  });

  describe('chutebox serve --docker-socket <the engine socket>', () => {
    let server: Started;

    beforeAll(async () => {
      server = await serve(engine!.socket);
    });

    it('GET /api/v1/info/features responds with 200 and includes "docker"', async () => {
      expect(await get<string[]>(server, '/api/v1/info/features')).toContain('docker');
    });

    it('lists exactly the labelled container, as chute "hello", running, with its CPU time, memory and processes', async () => {
      const chutes = await chutesOf(server);
      expect(chutes.map((c) => c.name)).toEqual(['hello']);
      const [hello] = chutes;
      expect(hello!.state).toBe('running');
      expect(hello!.memory.usage).toBeGreaterThan(0);
      expect(hello!.memory.limit).toBeGreaterThan(0);
      expect(hello!.pids).toBeGreaterThanOrEqual(1);
      expect(hello!.cpu.total_usage_ns).toBeGreaterThan(0);
      expect(hello!.cpu.percent).toBeTypeOf('number');
      // NetworkMode "none": the container has no interfaces of its own.
      expect(hello!.network).toEqual({ rx_bytes: 0, tx_bytes: 0 });
    });

    describe('after the chute container stops', () => {
      beforeAll(async () => {
        await chute.stop({ t: 0 });
      });

      it('still lists chute "hello", with state "exited" and no usage', async () => {
        expect(await chutesOf(server)).toEqual([
          {
            name: 'hello',
            service: 'main',
            state: 'exited',
            cpu: { total_usage_ns: 0, percent: null },
            memory: { usage: 0, limit: 0 },
            network: { rx_bytes: 0, tx_bytes: 0 },
            pids: 0,
          },
        ]);
      });
    });
  });

  describe('chutebox serve --docker-socket <a socket that does not exist>, while the engine runs', () => {
    let server: Started;

    beforeAll(async () => {
      server = await serve(path.join(engine!.dir, 'missing.sock'));
    });

    it('GET /api/v1/info/features responds with 200 and no "docker"', async () => {
      expect(await get<string[]>(server, '/api/v1/info/features')).not.toContain('docker');
    });

    it('GET /api/v1/info/telemetry responds with 200 and no chutes', async () => {
      expect(await chutesOf(server)).toEqual([]);
    });
  });
});
