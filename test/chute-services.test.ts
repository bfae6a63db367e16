import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { LIGHT_RUNTIMES } from '../functions/chutes/light-dockerfile.ts';
import { nanoTime } from '../functions/core/logs.ts';
import { finalChange, streamLines } from './support/http-client.ts';
import { dockerUnavailableReason, startDockerd, type Dockerd } from './support/dockerd.ts';
import { tarArchive } from './support/tar.ts';
import { serveArgs, useChutebox, type Started } from './support/spawn.ts';
import { openWebSocket, opened } from './support/websocket-client.ts';

/**
 * A chute of two services and a light chute, installed, run, updated, stopped, started and deleted on
 * `chutebox serve` with a real Docker Engine that this test starts. No base image can be pulled here:
 * the light chute's base (`python:3.12-slim`, what `use: python3` builds on) is a busybox image tagged
 * so. Skipped without an engine unless CHUTEBOX_REQUIRE_DOCKER is set (as in CI).
 */
const unavailable = dockerUnavailableReason();
const skipped = unavailable !== null && !process.env.CHUTEBOX_REQUIRE_DOCKER;
if (skipped) console.warn(`test/chute-services.test.ts skipped: ${unavailable}; set CHUTEBOX_REQUIRE_DOCKER=1 to make this a failure`);

/** A process that ends on SIGTERM, as a stop asks. */
const SLEEP = 'trap "exit 143" TERM; sleep 3600 & wait';

/** The source of chute `pair`: service web built from its folder, service db run from an engine image, each its own command and environment. */
function pairSource(version: number): Uint8Array {
  const yaml = [
    'name: pair',
    `version: ${version}`,
    'owner: alice',
    'environment: { STAGE: both }',
    'services:',
    '  web:',
    '    source: web',
    `    command: 'echo web ${version} > /who; ${SLEEP}'`,
    `    environment: { ROLE: web, VERSION: "${version}" }`,
    '  db:',
    '    type: image',
    '    image: chutebox-test:busybox',
    `    command: [sh, -c, '${SLEEP}']`,
    `    environment: { ROLE: db, VERSION: "${version}" }`,
    'web: { service: web, port: 80 }',
    '',
  ].join('\n');
  return tarArchive({ 'paradrop.yaml': yaml, 'web/Dockerfile': 'FROM chutebox-test:busybox\nCOPY page.txt /page.txt\n', 'web/page.txt': `page ${version}\n` });
}

/** The source of chute `duet`: two services run from an engine image, each printing a line; the second then a tick a second. */
function duetSource(): Uint8Array {
  const yaml = [
    'name: duet',
    'version: 1',
    'services:',
    '  web:',
    '    type: image',
    '    image: chutebox-test:busybox',
    `    command: 'echo web up; ${SLEEP}'`,
    '  db:',
    '    type: image',
    '    image: chutebox-test:busybox',
    `    command: 'trap "exit 143" TERM; echo db up >&2; while :; do sleep 1 & wait; echo db tick; done'`,
    '',
  ].join('\n');
  return tarArchive({ 'paradrop.yaml': yaml });
}

/** The source of light chute `feather`: no Dockerfile, `use: python3`, a file of the app. */
function featherSource(version: number): Uint8Array {
  const yaml = `name: feather\nversion: ${version}\ntype: light\nuse: python3\ncommand: '${SLEEP}'\n`;
  return tarArchive({ 'paradrop.yaml': yaml, 'main.py': `print(${version})\n` });
}

describe.skipIf(skipped)(`multi-service and light chutes on chutebox serve with a container engine${skipped ? ` (skipped: ${unavailable})` : ''}`, () => {
  let tmp: string | undefined;
  let engine: Dockerd | undefined;
  let server: Started | undefined;

  afterAll(async () => {
    await engine?.stop();
    if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
  });
  const start = useChutebox();

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'chutebox-services-test-'));
    engine = await startDockerd();
    const busybox = await engine.importBusybox('chutebox-test', 'busybox');
    const [repo, tag] = LIGHT_RUNTIMES.python3.base.split(':') as [string, string];
    await engine.docker.getImage(busybox).tag({ repo, tag });
    server = await start(serveArgs(path.join(tmp, 'state'), engine.socket, ['--container-network', 'none']));
  });

  /** Sends a request and answers the change once final. */
  async function change(method: string, endpoint: string, body?: Uint8Array): Promise<ChangeRecord> {
    const headers = body === undefined ? undefined : { 'content-type': 'application/x-tar' };
    const res = await fetch(`${server!.url}/api/v1${endpoint}`, { method, headers, body });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const done = await finalChange(server!.url, (JSON.parse(text) as { change_id: number }).change_id);
    expect(done.state, JSON.stringify(done.messages)).toBe('succeeded');
    return done;
  }

  const chute = async (name: string) => (await fetch(`${server!.url}/api/v1/chutes/${name}`)).json() as Promise<Record<string, unknown>>;
  const imageTags = async () => (await engine!.docker.listImages()).flatMap((image) => image.RepoTags ?? []);

  /** The chute's containers by name (`/chute-pair`, `/chute-pair-db`). */
  async function containers(name: string): Promise<Record<string, Docker.ContainerInspectInfo>> {
    return Object.fromEntries((await engine!.chuteContainers(name)).map((container) => [container.Name, container]));
  }

  /** What a command prints in a running container, once it prints `expected` (a container's command may not have written its file yet). */
  async function printed(id: string, command: string[], expected: string): Promise<string> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const text = await execIn(id, command);
      if (text === expected || Date.now() > deadline) return text;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** What a command prints in a running container. */
  async function execIn(id: string, command: string[]): Promise<string> {
    const exec = await engine!.docker.getContainer(id).exec({ Cmd: command, AttachStdout: true });
    const stream = await exec.start({});
    const chunks: Buffer[] = [];
    for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
    return Buffer.concat(chunks).subarray(8).toString('utf8');
  }

  it('installs a chute of two services: one container each, the second in the first one network namespace, each with its command and environment', async () => {
    await change('POST', '/chutes/', pairSource(1));
    expect(await chute('pair')).toMatchObject({
      state: 'running',
      owner: 'alice',
      services: { web: { state: 'running' }, db: { state: 'running' } },
    });
    const { '/chute-pair': web, '/chute-pair-db': db, ...others } = await containers('pair');
    expect(others).toEqual({});
    expect(web!.Config.Image).toBe('chute-pair:1');
    expect(web!.Config.Env).toEqual(expect.arrayContaining(['ROLE=web', 'VERSION=1', 'STAGE=both']));
    expect(db!.Config.Image).toBe('chutebox-test:busybox');
    expect(db!.Config.Env).toEqual(expect.arrayContaining(['ROLE=db', 'VERSION=1', 'STAGE=both']));
    expect(db!.HostConfig.NetworkMode).toBe(`container:${web!.Id}`);
    // Each service may call the API as its chute, with the chute's one token.
    const tokenOf = (env: string[]) => env.find((entry) => entry.startsWith('PARADROP_API_TOKEN='));
    expect(tokenOf(db!.Config.Env)).toBeDefined();
    expect(tokenOf(db!.Config.Env)).toBe(tokenOf(web!.Config.Env));
    expect(db!.Config.Env).toContain('PARADROP_CHUTE_NAME=pair');
    expect(await printed(web!.Id, ['busybox', 'cat', '/who', '/page.txt'], 'web 1\npage 1\n')).toBe('web 1\npage 1\n');
    const telemetry = (await (await fetch(`${server!.url}/api/v1/info/telemetry`)).json()) as { chutes: { name: string; service: string; state: string }[] };
    const pair = telemetry.chutes.filter((entry) => entry.name === 'pair').map(({ service, state }) => ({ service, state }));
    expect(pair.sort((a, b) => a.service.localeCompare(b.service))).toEqual([
      { service: 'db', state: 'running' },
      { service: 'web', state: 'running' },
    ]);
  });

  it("answers a service's failure in the chute's state", async () => {
    const { '/chute-pair-db': db } = await containers('pair');
    await engine!.docker.getContainer(db!.Id).kill({ signal: 'SIGKILL' });
    expect(await chute('pair')).toMatchObject({ state: 'failed', services: { web: { state: 'running' }, db: { state: 'failed' } } });
    await change('POST', '/chutes/pair/restart');
    expect(await chute('pair')).toMatchObject({ state: 'running', services: { web: { state: 'running' }, db: { state: 'running' } } });
  });

  it('updates both services from a new source, then stops, starts and deletes the chute with every container and image it built', async () => {
    await change('PUT', '/chutes/pair', pairSource(2));
    const { '/chute-pair': web, '/chute-pair-db': db, ...others } = await containers('pair');
    expect(others).toEqual({});
    expect(web!.Config.Image).toBe('chute-pair:2');
    expect(db!.Config.Env).toContain('VERSION=2');
    expect(db!.HostConfig.NetworkMode).toBe(`container:${web!.Id}`);
    expect(await printed(web!.Id, ['busybox', 'cat', '/who', '/page.txt'], 'web 2\npage 2\n')).toBe('web 2\npage 2\n');
    expect(await imageTags()).not.toContain('chute-pair:1');

    await change('POST', '/chutes/pair/stop');
    expect(await chute('pair')).toMatchObject({ state: 'stopped', services: { web: { state: 'stopped' }, db: { state: 'stopped' } } });
    await change('POST', '/chutes/pair/start');
    expect(await chute('pair')).toMatchObject({ state: 'running', services: { web: { state: 'running' }, db: { state: 'running' } } });

    await change('DELETE', '/chutes/pair');
    expect(await engine!.chuteContainers('pair')).toEqual([]);
    expect(await imageTags()).not.toContain('chute-pair:2');
    expect(await imageTags()).toContain('chutebox-test:busybox');
  });

  it("answers every service's log, each line labelled with its service and interleaved by time, over HTTP and ParaDrop's websocket", async () => {
    await change('POST', '/chutes/', duetSource());
    const lines = async (query: string) => (await (await streamLines(server!.url, `/api/v1/chutes/duet/logs${query}`)).rest()).map((line) => JSON.parse(line));
    const deadline = Date.now() + 10_000;
    let log = await lines('');
    while (!log.some((line) => line.message === 'db tick') && Date.now() < deadline) log = await lines('');
    expect(log).toEqual(
      expect.arrayContaining([
        { time: expect.any(String), service: 'web', stream: 'stdout', message: 'web up' },
        { time: expect.any(String), service: 'db', stream: 'stderr', message: 'db up' },
        { time: expect.any(String), service: 'db', stream: 'stdout', message: 'db tick' },
      ]),
    );
    const times = log.map((line) => nanoTime(line.time));
    expect(times).toEqual([...times].sort());

    // Followed: the last line of each service, then the companion's new lines as they come.
    const follow = await streamLines(server!.url, '/api/v1/chutes/duet/logs?follow=true&tail=1');
    const first = [JSON.parse((await follow.next())!), JSON.parse((await follow.next())!)];
    expect(first.map((line) => line.service).sort()).toEqual(['db', 'web']);
    const next = JSON.parse((await follow.next())!);
    expect(next).toMatchObject({ service: 'db', message: 'db tick' });
    expect(nanoTime(next.time) > nanoTime(first[1].time)).toBe(true);
    follow.close();

    const ws = opened(await openWebSocket(`${server!.url}/ws/chute_logs/duet`));
    const messages: { service: string; message: string }[] = [];
    while (!messages.some((m) => m.service === 'db' && m.message === 'db tick') || !messages.some((m) => m.service === 'web')) {
      messages.push(JSON.parse((await ws.next())!));
    }
    expect(messages).toContainEqual({ service: 'web', timestamp: expect.any(String), message: 'web up' });
    ws.close();
    await change('DELETE', '/chutes/duet');
  });

  it('installs a light chute: its image built on the base image of its runtime with the Dockerfile chutebox writes, updated and deleted', async () => {
    const installed = await change('POST', '/chutes/', featherSource(1));
    expect(installed.messages.map((message) => message.text)).toContain(`Step 1/5 : FROM ${LIGHT_RUNTIMES.python3.base}`);
    expect(await chute('feather')).toMatchObject({ state: 'running', services: { main: { state: 'running' } } });
    const first = (await engine!.chuteContainers('feather'))[0]!;
    expect(first.Config.Image).toBe('chute-feather:1');
    expect(first.Config.WorkingDir).toBe('/opt/paradrop/app');
    expect(await execIn(first.Id, ['busybox', 'cat', 'main.py'])).toBe('print(1)\n');

    await change('PUT', '/chutes/feather', featherSource(2));
    const [second, ...others] = await engine!.chuteContainers('feather');
    expect(others).toEqual([]);
    expect(await execIn(second!.Id, ['busybox', 'cat', 'main.py'])).toBe('print(2)\n');
    expect(await imageTags()).not.toContain('chute-feather:1');

    await change('DELETE', '/chutes/feather');
    expect(await engine!.chuteContainers('feather')).toEqual([]);
    expect(await imageTags()).not.toContain('chute-feather:2');
  });
});
