import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { finalChange } from './support/http-client.ts';
import { dockerUnavailableReason, startDockerd, type Dockerd } from './support/dockerd.ts';
import { tarArchive } from './support/tar.ts';
import { serveArgs, useChutebox, type Started } from './support/spawn.ts';

/**
 * Chutes installed and updated from their source, as pdtools sends it (a tar with paradrop.yaml and a
 * Dockerfile), on `chutebox serve` with a real Docker Engine that this test starts: the engine builds
 * the image, the chute runs it; a failed build or container leaves things as they were. Skipped
 * without an engine unless CHUTEBOX_REQUIRE_DOCKER is set (as in CI).
 */
const unavailable = dockerUnavailableReason();
const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_DOCKER;
if (skipped) console.warn(`test/chute-source.test.ts skipped: ${unavailable}; set CHUTEBOX_REQUIRE_DOCKER=1 to make this a failure`);

/** A chute's source: paradrop.yaml in the multi-service form, a Dockerfile FROM the test image, a file it copies. */
function source(version: number, dockerfile: string, greeting = `hello ${version}\n`): Uint8Array {
  const yaml = `name: kappa\nversion: ${version}\nenvironment: { STAGE: v${version} }\nservices:\n  main:\n    type: normal\n    source: .\n    environment: { FROM_SERVICE: "${version}" }\n`;
  return tarArchive({ 'paradrop.yaml': yaml, Dockerfile: dockerfile, 'greeting.txt': greeting });
}
const GOOD = 'FROM chutebox-test:sleeper\nCOPY greeting.txt /greeting.txt\nENV BUILT=yes\n';

describe.skipIf(skipped)(`chutes from their source on chutebox serve with a container engine${skipped ? ` (skipped: ${unavailable})` : ''}`, () => {
  let tmp: string | undefined;
  let engine: Dockerd | undefined;
  let stateDir: string;
  let server: Started | undefined;

  afterAll(async () => {
    await engine?.stop();
    if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
  });
  const start = useChutebox();

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'chutebox-source-test-'));
    stateDir = path.join(tmp, 'state');
    engine = await startDockerd();
    await engine.importBusybox('chutebox-test', 'sleeper', { cmd: ['sh', '-c', 'trap "exit 143" TERM; sleep 3600 & wait'] });
    server = await start(serveArgs(stateDir, engine.socket, ['--container-network', 'none']));
  });

  /** Sends a source tar and answers the change once final. */
  async function send(method: 'POST' | 'PUT', endpoint: string, body: Uint8Array): Promise<ChangeRecord> {
    const res = await fetch(`${server!.url}/api/v1${endpoint}`, { method, headers: { 'content-type': 'application/x-tar' }, body });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return finalChange(server!.url, (JSON.parse(text) as { change_id: number }).change_id);
  }

  const containersOf = (chute: string) => engine!.chuteContainers(chute);

  /** The text of a file in a container's image, read by running the image once. */
  async function fileOf(image: string, file: string): Promise<string> {
    const container = await engine!.docker.createContainer({ Image: image, Cmd: ['busybox', 'cat', file], HostConfig: { NetworkMode: 'none' } });
    await container.start();
    await container.wait();
    const logs = await container.logs({ stdout: true });
    await container.remove();
    return logs.subarray(8).toString('utf8');
  }

  const chute = async (name: string) => (await fetch(`${server!.url}/api/v1/chutes/${name}`)).json() as Promise<Record<string, unknown>>;
  const imageTags = async () => (await engine!.docker.listImages()).flatMap((image) => image.RepoTags ?? []);

  it('POST /api/v1/chutes/ builds the image from the Dockerfile, keeps the build steps in the change, and runs the chute from it', async () => {
    const change = await send('POST', '/chutes/', source(1, GOOD));
    expect(change.state, JSON.stringify(change.messages)).toBe('succeeded');
    const texts = change.messages.map((message) => message.text);
    expect(texts).toEqual(expect.arrayContaining(['building image chute-kappa:1 from the source of chute kappa', 'built image chute-kappa:1']));
    expect(texts.some((text) => /COPY greeting\.txt/.test(text))).toBe(true);
    expect(await chute('kappa')).toMatchObject({ name: 'kappa', version: '1', state: 'running', environment: { STAGE: 'v1' } });
    const [container, ...others] = await containersOf('kappa');
    expect(others).toEqual([]);
    expect(container!.Config.Image).toBe('chute-kappa:1');
    expect(container!.Config.Env).toEqual(expect.arrayContaining(['BUILT=yes', 'FROM_SERVICE=1', 'STAGE=v1']));
    expect(container!.State.Running).toBe(true);
    expect(await fileOf('chute-kappa:1', '/greeting.txt')).toBe('hello 1\n');
  });

  it('PUT /api/v1/chutes/kappa with a changed source builds a new image and recreates the container from it', async () => {
    const change = await send('PUT', '/chutes/kappa', source(2, GOOD.replace('BUILT=yes', 'BUILT=again')));
    expect(change.state, JSON.stringify(change.messages)).toBe('succeeded');
    expect(change.action).toBe('update');
    expect(await chute('kappa')).toMatchObject({ version: '2', state: 'running', environment: { STAGE: 'v2' } });
    const [container, ...others] = await containersOf('kappa');
    expect(others).toEqual([]);
    expect(container!.Config.Image).toBe('chute-kappa:2');
    expect(container!.Config.Env).toEqual(expect.arrayContaining(['BUILT=again', 'FROM_SERVICE=2', 'STAGE=v2']));
    expect(container!.State.Running).toBe(true);
    expect(await fileOf('chute-kappa:2', '/greeting.txt')).toBe('hello 2\n');
    expect(await imageTags()).not.toContain('chute-kappa:1');
  });

  it('a PUT whose build fails fails the change and leaves the chute as it was', async () => {
    const before = (await containersOf('kappa'))[0]!;
    const change = await send('PUT', '/chutes/kappa', source(3, 'FROM chutebox-test:sleeper\nRUN false\n'));
    expect(change.state).toBe('failed');
    expect(change.messages.at(-1)!.text).toMatch(/^failed: building image chute-kappa:3 failed: .*returned a non-zero code/);
    expect(await chute('kappa')).toMatchObject({ version: '2', state: 'running' });
    expect((await containersOf('kappa')).map((c) => c.Id)).toEqual([before.Id]);
    expect(await imageTags()).not.toContain('chute-kappa:3');
  });

  it('a PUT whose new container cannot start rolls back: the previous image, version, environment and container run again', async () => {
    const before = (await containersOf('kappa'))[0]!;
    // The image builds, but its command does not exist: the engine refuses to start the container.
    const change = await send('PUT', '/chutes/kappa', source(4, 'FROM chutebox-test:sleeper\nCMD ["/no/such/command"]\n'));
    expect(change.state).toBe('failed');
    expect(change.messages.at(-1)!.text).toMatch(/^failed: .*the previous configuration is restored/);
    expect(await chute('kappa')).toMatchObject({ version: '2', state: 'running', environment: { STAGE: 'v2' } });
    const after = await containersOf('kappa');
    expect(after.map((c) => c.Id)).toEqual([before.Id]);
    expect(after[0]!.Name).toBe('/chute-kappa');
    expect(after[0]!.Config.Image).toBe('chute-kappa:2');
    expect(after[0]!.State.Running).toBe(true);
    expect(await imageTags()).not.toContain('chute-kappa:4');
  });

  it('an install whose Dockerfile fails (RUN false) fails the change and leaves no chute, no container and no image', async () => {
    const failing = tarArchive({ 'paradrop.yaml': 'name: lambda\nversion: 1\n', Dockerfile: 'FROM chutebox-test:sleeper\nRUN false\n' });
    const change = await send('POST', '/chutes/', failing);
    expect(change.state).toBe('failed');
    expect(change.messages.at(-1)!.text).toMatch(/^failed: building image chute-lambda:1 failed: .*chute lambda is not installed/);
    expect((await fetch(`${server!.url}/api/v1/chutes/lambda`)).status).toBe(404);
    expect(await containersOf('lambda')).toEqual([]);
    expect(await imageTags()).not.toContain('chute-lambda:1');
    expect(await readdir(path.join(stateDir, 'chutes'))).toEqual(['kappa']);
  });
});
