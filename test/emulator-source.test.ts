import { beforeAll, describe, expect, it } from 'vitest';
import { useChutebox, type Started } from './support/spawn.ts';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { callApi as call, finalChange } from './support/http-client.ts';
import { tarArchive } from './support/tar.ts';

/**
 * Chutes from their source (a tar with paradrop.yaml and a Dockerfile, as pdtools install-chute and
 * update-chute send it) on `chutebox emulate --no-auth` with the default scenario: the emulator reads
 * paradrop.yaml, names the image a device would build, and installs or updates the chute.
 */
const start = useChutebox();

const DOCKERFILE = 'FROM busybox\nCOPY app.sh /app.sh\n';
const source = (yaml: string) => tarArchive({ 'paradrop.yaml': yaml, Dockerfile: DOCKERFILE, 'app.sh': 'echo hi\n' });

describe('chutebox emulate: install and update a chute from its source', () => {
  let server: Started;

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--no-auth', '--change-delay', '5', '--upload-limit', '1']);
  });

  const send = (method: string, endpoint: string, body: Uint8Array) =>
    fetch(`${server.url}/api/v1${endpoint}`, { method, headers: { 'content-type': 'application/x-tar' }, body });

  async function changeOf(res: Response) {
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return finalChange(server.url, (JSON.parse(text) as { change_id: number }).change_id);
  }

  it('POST /api/v1/chutes/ installs the chute named in paradrop.yaml, its version, environment and configuration from it', async () => {
    const yaml =
      'name: sourced\nversion: 1\nenvironment: { STAGE: one }\nservices:\n  main:\n    type: normal\n    source: .\n    environment: { MODE: demo }\nweb: { service: main, port: 8080 }\n';
    const installed = await changeOf(await send('POST', '/chutes/', source(yaml)));
    expect(installed).toMatchObject({ action: 'install', chute: 'sourced', state: 'succeeded' });
    expect(installed.messages.map((m) => m.text)).toContain(
      'built image chute-sourced:1 from the uploaded source (emulated: paradrop.yaml was read, no Dockerfile was run)',
    );
    expect((await call(server, 'GET', '/chutes/sourced')).body).toMatchObject({
      name: 'sourced',
      version: '1',
      state: 'running',
      environment: { STAGE: 'one' },
    });
    expect((await call(server, 'GET', '/chutes/sourced/config')).body).toEqual({ environment: { MODE: 'demo' }, web: { service: 'main', port: 8080 } });
  });

  it('PUT /api/v1/chutes/sourced updates it: the new version, environment and configuration are what GET answers', async () => {
    const yaml = 'name: sourced\nversion: 2\nenvironment: { STAGE: two }\nconfig:\n  web: { port: 9090 }\n';
    const updated = await changeOf(await send('PUT', '/chutes/sourced', source(yaml)));
    expect(updated).toMatchObject({ action: 'update', chute: 'sourced', state: 'succeeded' });
    expect(updated.messages.map((m) => m.text)).toContain(
      'built image chute-sourced:2 from the uploaded source (emulated: paradrop.yaml was read, no Dockerfile was run)',
    );
    expect((await call(server, 'GET', '/chutes/sourced')).body).toMatchObject({
      name: 'sourced',
      version: '2',
      state: 'running',
      environment: { STAGE: 'two' },
    });
    expect((await call(server, 'GET', '/chutes/sourced/config')).body).toEqual({ web: { port: 9090 } });
  });

  it('responds with 404 to a PUT of a chute that is not installed, 422 to one naming another chute, and queues nothing', async () => {
    const changes = (await call<ChangeRecord[]>(server, 'GET', '/changes/')).body.length;
    expect((await send('PUT', '/chutes/ghost', source('name: ghost\n'))).status).toBe(404);
    const other = await send('PUT', '/chutes/sourced', source('name: hotspot\n'));
    expect(other.status).toBe(422);
    expect(((await other.json()) as { errors: { path: string }[] }).errors.map((error) => error.path)).toEqual(['body.paradrop.yaml.name']);
    expect((await call(server, 'GET', '/changes/')).body).toHaveLength(changes);
  });

  it('responds with 422 naming body to tars broken after a readable first entry, or cut short, on install and update, and queues nothing', async () => {
    const changes = (await call<ChangeRecord[]>(server, 'GET', '/changes/')).body.length;
    const good = source('name: sourced\nversion: 3\n');
    // paradrop.yaml reads well; the header after it is damaged (its checksum no longer adds up), or the tar stops inside a file.
    const corrupted = good.slice();
    corrupted[1024 + 10] = 0x41;
    const truncated = good.slice(0, 1024 + 512 + 100);
    const imageArchive = tarArchive({ 'manifest.json': '[{"RepoTags":["busybox:latest"]}]', 'layer.tar': 'x'.repeat(600) });
    const brokenArchive = imageArchive.slice(0, 1024 + 300);
    for (const [method, endpoint] of [
      ['POST', '/chutes/'],
      ['PUT', '/chutes/sourced'],
    ] as const) {
      for (const body of [corrupted, truncated, brokenArchive]) {
        const res = await send(method, endpoint, body);
        const text = await res.text();
        expect(res.status, `${method} ${endpoint}: ${text}`).toBe(422);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect((JSON.parse(text) as { errors: { path: string }[] }).errors.map((error) => error.path)).toContain('body');
      }
    }
    expect((await call(server, 'GET', '/changes/')).body).toHaveLength(changes);
  });

  it('responds with 413 to a source above --upload-limit', async () => {
    // Last: the server closes the connection after a 413 it did not read to the end.
    expect((await send('PUT', '/chutes/sourced', new Uint8Array(1024 * 1024 + 1))).status).toBe(413);
  });
});
