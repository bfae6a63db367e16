import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { installChute } from './support/chute-state.ts';
import { dockerUnavailableReason, startDockerd, type Dockerd } from './support/dockerd.ts';
import { useChutebox, type Started } from './support/spawn.ts';

/**
 * The chute lifecycle of `chutebox serve` on a real Docker Engine that this test starts (dockerd and
 * busybox-static, which `.ci/run` installs): changes over HTTP, their effect on the engine, failures
 * rolled back, and a runtime restart. Without an engine the test is skipped, unless
 * CHUTEBOX_REQUIRE_DOCKER is set (as in CI): then it fails.
 */
const unavailable = dockerUnavailableReason();
const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_DOCKER;
if (skipped) console.warn(`test/chute-lifecycle.test.ts skipped: ${unavailable}; set CHUTEBOX_REQUIRE_DOCKER=1 to make this a failure`);

/** How long a change may take to become final (creating and starting a container takes well under a second). */
const CHANGE_DEADLINE_MS = 60_000;

const ALPHA_CONFIG = { environment: { GREETING: 'hello', PORT: 8080 }, host_config: { port_bindings: { 80: 8080 }, dns: ['192.0.2.53'] } };
const BETA_CONFIG = { environment: { MODE: 'one' } };

describe.skipIf(skipped)(`chute changes on chutebox serve with a container engine${skipped ? ` (skipped: ${unavailable})` : ''}`, () => {
  let tmp: string | undefined;
  let engine: Dockerd | undefined;
  let stateDir: string;
  let server: Started | undefined;

  afterAll(async () => {
    await engine?.stop();
    if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
  });

  // After the clean-up above, so that every server stops before the engine and the temp dir go.
  const start = useChutebox();

  async function serve(): Promise<void> {
    const args = ['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, '--docker-socket', engine!.socket, '--container-network', 'none'];
    server = await start(args);
  }

  async function call(method: string, endpoint: string, body?: { type: string; text: string }): Promise<{ status: number; json: unknown }> {
    const init: RequestInit = { method };
    if (body !== undefined) Object.assign(init, { body: body.text, headers: { 'content-type': body.type } });
    const res = await fetch(`${server!.url}/api/v1${endpoint}`, init);
    const text = await res.text();
    return { status: res.status, json: text === '' ? null : JSON.parse(text) };
  }

  async function get<T>(endpoint: string): Promise<T> {
    const answer = await call('GET', endpoint);
    expect(answer.status, `GET ${endpoint}`).toBe(200);
    return answer.json as T;
  }

  /** Submits a change over HTTP and answers its id. */
  async function submit(method: string, endpoint: string, body?: { type: string; text: string }): Promise<number> {
    const answer = await call(method, endpoint, body);
    expect(answer, `${method} ${endpoint}`).toMatchObject({ status: 200, json: { change_id: expect.any(Number) } });
    return (answer.json as { change_id: number }).change_id;
  }

  /** Polls GET /api/v1/changes/:id until the change is final. */
  async function final(id: number): Promise<ChangeRecord> {
    const deadline = Date.now() + CHANGE_DEADLINE_MS;
    for (;;) {
      const change = await get<ChangeRecord>(`/changes/${id}`);
      if (change.state === 'succeeded' || change.state === 'failed') return change;
      if (Date.now() > deadline) throw new Error(`change ${id} is still ${change.state} after ${CHANGE_DEADLINE_MS / 1000} s: ${JSON.stringify(change)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function succeeded(id: number): Promise<ChangeRecord> {
    const change = await final(id);
    expect(change.state, JSON.stringify(change.messages)).toBe('succeeded');
    return change;
  }

  const containersOf = (chute: string) => engine!.chuteContainers(chute);

  async function onlyContainerOf(chute: string): Promise<Docker.ContainerInspectInfo> {
    const containers = await containersOf(chute);
    expect(containers).toHaveLength(1);
    return containers[0]!;
  }

  const stateOf = async (chute: string) => (await get<{ state: string }>(`/chutes/${chute}`)).state;
  const storedRecord = async (chute: string) =>
    JSON.parse(await readFile(path.join(stateDir, 'chutes', chute, 'chute.json'), 'utf8')) as Record<string, unknown>;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'chutebox-lifecycle-test-'));
    stateDir = path.join(tmp, 'state');
    engine = await startDockerd();
    // A chute that ends on SIGTERM with 143 (128 + 15), as most processes a stop kills do: the chute must
    // read "stopped" after a stop all the same. (sleep as PID 1 would ignore SIGTERM until killed.)
    const image = await engine.importBusybox('chutebox-test', 'sleeper', { cmd: ['sh', '-c', 'trap "exit 143" TERM; sleep 3600 & wait'] });
    // beta runs the same image under a second name, which a test removes while beta runs.
    await engine.docker.getImage(image).tag({ repo: 'chutebox-test', tag: 'doomed' });
    await installChute(stateDir, 'alpha', image, ALPHA_CONFIG, { environment: { FROM_RECORD: 'yes' } });
    await installChute(stateDir, 'beta', 'chutebox-test:doomed', BETA_CONFIG);
    await serve();
  });

  it('POST /api/v1/chutes/:chute/start answers a change id; both changes succeed and both chutes run', async () => {
    const ids = [await submit('POST', '/chutes/alpha/start'), await submit('POST', '/chutes/beta/start')];
    expect(ids[1]).toBe(ids[0]! + 1);
    for (const id of ids) {
      const change = await succeeded(id);
      expect(change.messages.map((m) => m.text)).toEqual(expect.arrayContaining(['queued', 'running', 'succeeded']));
      expect(change.messages.every((m) => !Number.isNaN(Date.parse(m.time)))).toBe(true);
    }
    const list = await get<{ name: string; state: string }[]>('/chutes/');
    expect(list.map(({ name, state }) => ({ name, state }))).toEqual([
      { name: 'alpha', state: 'running' },
      { name: 'beta', state: 'running' },
    ]);
    expect(await stateOf('alpha')).toBe('running');
    expect((await storedRecord('alpha')).state).toBe('running');
  });

  it('runs the container chute-<name> from the record image, with the configured environment, ports, DNS and network', async () => {
    const alpha = await onlyContainerOf('alpha');
    expect(alpha.Name).toBe('/chute-alpha');
    expect(alpha.Config.Image).toBe('chutebox-test:sleeper');
    expect(alpha.Config.Env).toEqual(expect.arrayContaining(['GREETING=hello', 'PORT=8080', 'FROM_RECORD=yes']));
    expect(alpha.HostConfig.NetworkMode).toBe('none');
    expect(alpha.HostConfig.PortBindings).toEqual({ '80/tcp': [{ HostIp: '', HostPort: '8080' }] });
    expect(alpha.HostConfig.Dns).toEqual(['192.0.2.53']);
    expect(alpha.State.Running).toBe(true);
  });

  it('PUT /api/v1/chutes/:chute/config (YAML) recreates the container with the new environment', async () => {
    const before = await onlyContainerOf('alpha');
    const yaml = 'environment:\n  GREETING: bonjour\n  DEBUG: true\nhost_config:\n  dns: [192.0.2.54]\n';
    await succeeded(await submit('PUT', '/chutes/alpha/config', { type: 'application/yaml', text: yaml }));
    const after = await onlyContainerOf('alpha');
    expect(after.Id).not.toBe(before.Id);
    expect(after.Config.Env).toEqual(expect.arrayContaining(['GREETING=bonjour', 'DEBUG=true', 'FROM_RECORD=yes']));
    expect(after.Config.Env).not.toContain('PORT=8080');
    expect(after.HostConfig.Dns).toEqual(['192.0.2.54']);
    expect(Date.parse(after.State.StartedAt)).toBeGreaterThan(Date.parse(before.State.StartedAt));
    expect(await get('/chutes/alpha/config')).toEqual({ environment: { GREETING: 'bonjour', DEBUG: true }, host_config: { dns: ['192.0.2.54'] } });
  });

  it('GET /api/v1/changes/<id> after a stop shows the messages chutebox emulate shows for one (container ids aside)', async () => {
    const onServe = await succeeded(await submit('POST', '/chutes/alpha/stop'));
    const emulator = await start(['emulate', '--host', '127.0.0.1', '--port', '0', '--no-auth', '--change-delay', '0']);
    const stop = await fetch(`${emulator.url}/api/v1/chutes/hotspot/stop`, { method: 'POST' });
    const { change_id: id } = (await stop.json()) as { change_id: number };
    let inEmulator: ChangeRecord;
    do inEmulator = (await (await fetch(`${emulator.url}/api/v1/changes/${id}`)).json()) as ChangeRecord;
    while (inEmulator.state !== 'succeeded' && inEmulator.state !== 'failed');
    const texts = (change: ChangeRecord) => change.messages.map((m) => m.text.replace(/\b[0-9a-f]{12}\b/g, '<id>'));
    expect(texts(inEmulator)).toEqual(texts(onServe));
    expect(texts(onServe)).toEqual(['queued', 'running', 'stopped container <id>', 'succeeded']);
    await succeeded(await submit('POST', '/chutes/alpha/start'));
  });

  it('POST …/stop stops the chute and POST …/start starts the same container again', async () => {
    const before = await onlyContainerOf('alpha');
    await succeeded(await submit('POST', '/chutes/alpha/stop'));
    expect(await stateOf('alpha')).toBe('stopped');
    expect((await storedRecord('alpha')).state).toBe('stopped');
    expect((await onlyContainerOf('alpha')).State.Running).toBe(false);

    await succeeded(await submit('POST', '/chutes/alpha/start'));
    expect(await stateOf('alpha')).toBe('running');
    const after = await onlyContainerOf('alpha');
    expect(after.Id).toBe(before.Id);
    expect(after.State.Running).toBe(true);
  });

  it("POST …/restart with an environment replaces the chute's environment for good, as ParaDrop does", async () => {
    await succeeded(await submit('POST', '/chutes/alpha/restart', { type: 'application/json', text: JSON.stringify({ environment: { EXTRA: 'kept' } }) }));
    const alpha = await onlyContainerOf('alpha');
    expect(alpha.State.Running).toBe(true);
    expect(alpha.Config.Env).toEqual(expect.arrayContaining(['GREETING=bonjour', 'EXTRA=kept']));
    expect(alpha.Config.Env).not.toContain('FROM_RECORD=yes');
    expect((await storedRecord('alpha')).environment).toEqual({ EXTRA: 'kept' });
    expect((await get<{ environment: unknown }>('/chutes/alpha')).environment).toEqual({ EXTRA: 'kept' });
    // A restart without one keeps it.
    await succeeded(await submit('POST', '/chutes/alpha/restart'));
    expect((await onlyContainerOf('alpha')).Config.Env).toContain('EXTRA=kept');
  });

  it('a PUT config whose change fails (its image was removed meanwhile) fails, and the previous configuration and container run again', async () => {
    const before = await onlyContainerOf('beta');
    await engine!.docker.getImage('chutebox-test:doomed').remove();

    const change = await final(
      await submit('PUT', '/chutes/beta/config', { type: 'application/json', text: JSON.stringify({ environment: { MODE: 'two' } }) }),
    );
    expect(change.state).toBe('failed');
    expect(change.messages.at(-1)!.text).toMatch(/^failed: .*No such image: chutebox-test:doomed.*the previous configuration is restored/);

    expect(await get('/chutes/beta/config')).toEqual(BETA_CONFIG);
    const after = await onlyContainerOf('beta');
    expect(after.Id).toBe(before.Id);
    expect(after.Name).toBe('/chute-beta');
    expect(after.State.Running).toBe(true);
    expect(after.Config.Env).toContain('MODE=one');
    expect(await stateOf('beta')).toBe('running');
  });

  it('changes to one chute run one after the other, in the order they were submitted', async () => {
    const ids = [await submit('POST', '/chutes/alpha/stop'), await submit('POST', '/chutes/alpha/start'), await submit('POST', '/chutes/alpha/stop')];
    const changes = await Promise.all(ids.map(succeeded));
    for (let i = 1; i < changes.length; i++) {
      const startedAt = changes[i]!.messages.find((m) => m.text === 'running')!.time;
      expect(Date.parse(startedAt)).toBeGreaterThanOrEqual(Date.parse(changes[i - 1]!.updated));
    }
    expect(await stateOf('alpha')).toBe('stopped');
  });

  it('never touches a container that is not labelled as the chute, even one named chute-<name>', async () => {
    const stranger = await engine!.docker.createContainer({ name: 'chute-gamma', Image: 'chutebox-test:sleeper', HostConfig: { NetworkMode: 'none' } });
    await installChute(stateDir, 'gamma', 'chutebox-test:sleeper', {});

    const change = await final(await submit('POST', '/chutes/gamma/start'));
    expect(change.state).toBe('failed');
    expect(change.messages.at(-1)!.text).toMatch(/^failed: .*chute-gamma.*already in use/);
    const inspected = await stranger.inspect();
    expect(inspected.State.Status).toBe('created');
    expect(inspected.Config.Labels ?? {}).toEqual({});
    expect(await stateOf('gamma')).toBe('missing');

    await succeeded(await submit('DELETE', '/chutes/gamma'));
    expect((await stranger.inspect()).State.Status).toBe('created');
    await stranger.remove();
  });

  describe('after the runtime restarts on the same state dir', () => {
    let before: ChangeRecord[];

    beforeAll(async () => {
      before = await get<ChangeRecord[]>('/changes/');
      await server!.stop();
      await serve();
    });

    it('GET /api/v1/changes/ answers every change, newest first, as before', async () => {
      expect(before.length).toBeGreaterThanOrEqual(11);
      expect(await get('/changes/')).toEqual(before);
      expect(before.map((c) => c.id)).toEqual(before.map((_, i) => before.length - i));
    });

    it('still lists both chutes in their states', async () => {
      expect(await stateOf('alpha')).toBe('stopped');
      expect(await stateOf('beta')).toBe('running');
    });

    it('numbers the next change after the last one', async () => {
      const id = await submit('POST', '/chutes/alpha/start');
      expect(id).toBe(before[0]!.id + 1);
      await succeeded(id);
      expect(await stateOf('alpha')).toBe('running');
    });

    it('DELETE /api/v1/chutes/:chute removes its container and its documents; the chute is then 404', async () => {
      await succeeded(await submit('DELETE', '/chutes/alpha'));
      expect(await containersOf('alpha')).toEqual([]);
      expect((await call('GET', '/chutes/alpha')).status).toBe(404);
      expect((await get<{ name: string }[]>('/chutes/')).map((c) => c.name)).toEqual(['beta']);
      expect(await readdir(path.join(stateDir, 'chutes'))).toEqual(['beta']);
      expect((await onlyContainerOf('beta')).State.Running).toBe(true);
    });
  });

  describe('POST /api/v1/chutes/ (install from an image in the engine)', () => {
    const DELTA = {
      name: 'delta',
      image: 'chutebox-test:sleeper',
      version: '1',
      config: { environment: { GREETING: 'hey', PORT: 8081 }, host_config: { dns: ['192.0.2.53'] } },
      environment: { FROM_INSTALL: 'yes' },
      allocation: { cpu_shares: 512 },
    };
    const EPSILON_YAML = 'name: epsilon\nimage: chutebox-test:sleeper\nconfig:\n  environment:\n    DEBUG: yes\n';

    it('installs two chutes over HTTP (JSON and YAML); both changes succeed and both chutes run', async () => {
      const ids = [
        await submit('POST', '/chutes/', { type: 'application/json', text: JSON.stringify(DELTA) }),
        await submit('POST', '/chutes', { type: 'application/yaml', text: EPSILON_YAML }),
      ];
      for (const id of ids) {
        const change = await succeeded(id);
        expect(change).toMatchObject({ action: 'install' });
        expect(change.messages.map((m) => m.text)).toEqual(expect.arrayContaining(['queued', 'running', `stored chute ${change.chute}`, 'succeeded']));
      }
      const list = await get<{ name: string; state: string }[]>('/chutes/');
      expect(list.map(({ name, state }) => ({ name, state }))).toEqual([
        { name: 'beta', state: 'running' },
        { name: 'delta', state: 'running' },
        { name: 'epsilon', state: 'running' },
      ]);
    });

    it('reads an installed chute, its configuration, its cache and its stored record', async () => {
      expect(await get('/chutes/delta')).toEqual({
        name: 'delta',
        version: '1',
        state: 'running',
        environment: { FROM_INSTALL: 'yes' },
        allocation: { cpu_shares: 512, prioritize_traffic: false },
        resources: null,
        services: { main: { state: 'running', allocation: { cpu_shares: 512, prioritize_traffic: false } } },
        owner: null,
      });
      expect(await get('/chutes/delta/config')).toEqual(DELTA.config);
      expect(await get('/chutes/delta/cache')).toEqual({});
      expect(await get('/chutes/epsilon/config')).toEqual({ environment: { DEBUG: true } });
      expect(await storedRecord('delta')).toEqual({
        name: 'delta',
        version: '1',
        state: 'running',
        image: 'chutebox-test:sleeper',
        environment: { FROM_INSTALL: 'yes' },
        allocation: { cpu_shares: 512 },
        resources: null,
      });
    });

    it('runs each in its container chute-<name>, labelled as the chute, with the configured and installed environment', async () => {
      const delta = await onlyContainerOf('delta');
      expect(delta.Name).toBe('/chute-delta');
      expect(delta.Config.Labels).toMatchObject({ 'io.chutebox.chute': 'delta' });
      expect(delta.Config.Image).toBe('chutebox-test:sleeper');
      expect(delta.Config.Env).toEqual(expect.arrayContaining(['GREETING=hey', 'PORT=8081', 'FROM_INSTALL=yes']));
      expect(delta.HostConfig.Dns).toEqual(['192.0.2.53']);
      expect(delta.HostConfig.NetworkMode).toBe('none');
      expect(delta.HostConfig.CpuShares).toBe(512);
      expect(delta.State.Running).toBe(true);
      const epsilon = await onlyContainerOf('epsilon');
      expect(epsilon.Config.Labels).toMatchObject({ 'io.chutebox.chute': 'epsilon' });
      expect(epsilon.Config.Env).toContain('DEBUG=true');
      expect(epsilon.State.Running).toBe(true);
    });

    it('responds with 409 for the name of an installed chute, and queues nothing', async () => {
      const before = (await get<ChangeRecord[]>('/changes/')).length;
      const answer = await call('POST', '/chutes/', { type: 'application/json', text: JSON.stringify({ ...DELTA, image: 'chutebox-test:doomed' }) });
      expect(answer).toMatchObject({ status: 409 });
      expect(await get<ChangeRecord[]>('/changes/')).toHaveLength(before);
    });

    it('fails an install naming an image the engine does not have, and leaves no chute and no container', async () => {
      const change = await final(
        await submit('POST', '/chutes/', { type: 'application/json', text: JSON.stringify({ name: 'ghost', image: 'chutebox-test:nosuch' }) }),
      );
      expect(change.state).toBe('failed');
      expect(change.messages.at(-1)!.text).toMatch(/^failed: .*No such image: chutebox-test:nosuch.*chute ghost is not installed/);
      expect((await call('GET', '/chutes/ghost')).status).toBe(404);
      expect((await get<{ name: string }[]>('/chutes/')).map((c) => c.name)).toEqual(['beta', 'delta', 'epsilon']);
      expect(await containersOf('ghost')).toEqual([]);
      expect(await readdir(path.join(stateDir, 'chutes'))).toEqual(['beta', 'delta', 'epsilon']);
    });

    it('takes a new chute by that name once the failed install is over', async () => {
      const change = await succeeded(
        await submit('POST', '/chutes/', { type: 'application/json', text: JSON.stringify({ name: 'ghost', image: 'chutebox-test:sleeper' }) }),
      );
      expect(change.chute).toBe('ghost');
      expect(await stateOf('ghost')).toBe('running');
      await succeeded(await submit('DELETE', '/chutes/ghost'));
      expect(await containersOf('ghost')).toEqual([]);
    });
  });

  describe('POST /api/v1/chutes/ (install from an uploaded image tar)', () => {
    const upload = (query: string, body: Uint8Array) =>
      fetch(`${server!.url}/api/v1/chutes/?${query}`, { method: 'POST', headers: { 'content-type': 'application/x-tar' }, body });

    it('loads a docker-save archive of an image the engine no longer has and installs a running chute from it', async () => {
      await engine!.docker.getImage('chutebox-test:sleeper').tag({ repo: 'chutebox-test', tag: 'uploaded' });
      const stream = await engine!.docker.getImage('chutebox-test:uploaded').get();
      const chunks: Buffer[] = [];
      for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
      await engine!.docker.getImage('chutebox-test:uploaded').remove();
      await expect(engine!.docker.getImage('chutebox-test:uploaded').inspect()).rejects.toThrow();

      const res = await upload('name=theta&version=7', new Uint8Array(Buffer.concat(chunks)));
      expect(res.status, await res.clone().text()).toBe(200);
      const change = await succeeded(((await res.json()) as { change_id: number }).change_id);
      expect(change).toMatchObject({ action: 'install', chute: 'theta' });
      expect(await stateOf('theta')).toBe('running');
      expect(await get('/chutes/theta/config')).toEqual({});
      const theta = await onlyContainerOf('theta');
      expect(theta.Config.Image).toBe('chutebox-test:uploaded');
      expect(theta.State.Running).toBe(true);
      // What the engine keeps of its output is bounded: a chatty chute cannot fill the flash.
      expect(theta.HostConfig.LogConfig).toEqual({ Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '2' } });
      expect((await engine!.docker.getImage('chutebox-test:uploaded').inspect()).RepoTags).toContain('chutebox-test:uploaded');
      await succeeded(await submit('DELETE', '/chutes/theta'));
    });

    it('responds with 422 naming body for a body that is not a tar, and makes nothing', async () => {
      const changes = (await get<unknown[]>('/changes/')).length;
      const res = await upload('name=iota', new TextEncoder().encode('this is not an image archive'));
      expect(res.status).toBe(422);
      expect(((await res.json()) as { errors: { path: string }[] }).errors.map((error) => error.path)).toEqual(['body']);
      expect(await get<unknown[]>('/changes/')).toHaveLength(changes);
      expect(await containersOf('iota')).toEqual([]);
      expect(await readdir(path.join(stateDir, 'chutes'))).not.toContain('iota');
    });
  });

  describe('a runtime killed (SIGKILL) at any moment restarts with nothing lost', () => {
    const ZETA_OLD = { environment: { VERSION: 'one' } };
    const ZETA_NEW = { environment: { VERSION: 'two' } };

    /** Kills the runtime by its pid, as a power cut or the OOM killer would, and waits until it is gone. */
    async function kill(): Promise<void> {
      const child = server!.child;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid!, 'SIGKILL');
      await exited;
    }

    const storedChange = async (id: number) => JSON.parse(await readFile(path.join(stateDir, 'changes', `${id}.json`), 'utf8')) as ChangeRecord;

    beforeAll(async () => {
      // Its container takes ~2 s to stop (its SIGTERM trap sleeps first), which leaves time to kill the
      // runtime in the middle of a configuration update.
      const slow = await engine!.importBusybox('chutebox-test', 'slow-stop', { cmd: ['sh', '-c', 'trap "sleep 2; exit 143" TERM; sleep 3600 & wait'] });
      await installChute(stateDir, 'zeta', slow, ZETA_OLD);
      await installChute(stateDir, 'eta', 'chutebox-test:sleeper', {});
      await succeeded(await submit('POST', '/chutes/zeta/start'));
      await succeeded(await submit('POST', '/chutes/eta/start'));
    });

    it('killed during a PUT config, comes back with the change final and the chute running one configuration in one container', async () => {
      const before = await onlyContainerOf('zeta');
      const id = await submit('PUT', '/chutes/zeta/config', { type: 'application/json', text: JSON.stringify(ZETA_NEW) });
      const deadline = Date.now() + CHANGE_DEADLINE_MS;
      for (;;) {
        const change = await get<ChangeRecord>(`/changes/${id}`);
        if (change.state === 'succeeded' || change.state === 'failed' || change.messages.some((m) => m.text === 'stored the new configuration')) break;
        if (Date.now() > deadline) throw new Error(`change ${id} never got under way: ${JSON.stringify(change)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await kill();
      await serve();

      // Final on disk as soon as the runtime listens, before anything asks for it.
      const change = await storedChange(id);
      expect(['succeeded', 'failed']).toContain(change.state);
      const config = await get<Record<string, unknown>>('/chutes/zeta/config');
      const zeta = await onlyContainerOf('zeta');
      expect(zeta.Name).toBe('/chute-zeta');
      expect(zeta.State.Running).toBe(true);
      expect(await stateOf('zeta')).toBe('running');
      expect((await storedRecord('zeta')).state).toBe('running');
      expect(await readdir(path.join(stateDir, 'chutes', 'zeta'))).not.toContain('rollback.json');
      if (change.state === 'failed') {
        // Cut short: the previous configuration and its container are back, and the record says how.
        expect(config).toEqual(ZETA_OLD);
        expect(zeta.Id).toBe(before.Id);
        expect(zeta.Config.Env).toContain('VERSION=one');
        expect(change.messages.map((m) => m.text)).toEqual(
          expect.arrayContaining([
            'failed: the runtime stopped while the change was running',
            'repaired at the next start: restored the previous configuration',
          ]),
        );
        expect(server!.output()).toContain('chute zeta: restored the previous configuration');
      } else {
        expect(config).toEqual(ZETA_NEW);
        expect(zeta.Config.Env).toContain('VERSION=two');
      }
      expect(await get<ChangeRecord>(`/changes/${id}`)).toEqual(change);
    });

    it('a chute whose container was removed while the runtime was down reads missing after the restart, stored and logged', async () => {
      expect(await stateOf('eta')).toBe('running');
      await server!.stop();
      await engine!.docker.getContainer((await onlyContainerOf('eta')).Id).remove({ force: true });
      await serve();

      expect((await storedRecord('eta')).state).toBe('missing');
      expect(server!.output()).toContain('chute eta: running → missing');
      expect(await stateOf('eta')).toBe('missing');
      expect(await stateOf('zeta')).toBe('running');
    });
  });

  // Last: it removes every chute the tests above made.
  describe('POST /api/v1/config/factoryReset', () => {
    it('responds with success once every container labelled as a chute is gone; GET /api/v1/chutes/ answers [] and other containers stay', async () => {
      const installed = await get<{ name: string }[]>('/chutes/');
      expect(installed.length).toBeGreaterThan(1);
      const labelled = () => engine!.docker.listContainers({ all: true, filters: { label: ['io.chutebox.chute'] } });
      expect((await labelled()).length).toBeGreaterThan(1);
      const stranger = await engine!.docker.createContainer({ name: 'not-a-chute', Image: 'chutebox-test:sleeper', HostConfig: { NetworkMode: 'none' } });

      const answer = await call('POST', '/config/factoryReset');
      expect(answer).toEqual({ status: 200, json: { success: true, message: expect.stringContaining(`removed ${installed.length} chutes`) } });
      expect(await labelled()).toEqual([]);
      expect(await get('/chutes/')).toEqual([]);
      expect(await get('/changes/')).toEqual([]);
      expect(await readdir(stateDir)).not.toContain('chutes');
      expect((await stranger.inspect()).State.Status).toBe('created');
      await stranger.remove();
    });
  });
});
