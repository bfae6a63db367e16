import { beforeAll, describe, expect, it } from 'vitest';
import { useChutebox, type Started } from './support/spawn.ts';
import { callApi as call } from './support/http-client.ts';
import { brokenTars } from './support/broken-tars.ts';
import { dockerSaveArchive, tarArchive } from './support/tar.ts';

/**
 * Broken uploads (issue 11): a chute's source as pdtools sends it and an image archive as docker save
 * writes it, each cut short at every kind of place or with a damaged header, sent to install and
 * update on `chutebox emulate --no-auth` with the default scenario. Every one is the client's mistake.
 */
const start = useChutebox();

const SOURCE = tarArchive({
  'paradrop.yaml': 'name: hotspot\nversion: 9\n',
  Dockerfile: 'FROM busybox\nCOPY app.sh /app.sh\n',
  'app.sh': 'echo hi\n'.repeat(100),
});
const IMAGE_ARCHIVE = dockerSaveArchive(['busybox:latest']);

describe('chutebox emulate: broken tars sent to POST /api/v1/chutes/ and PUT /api/v1/chutes/<chute>', () => {
  let server: Started;

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--no-auth', '--change-delay', '5']);
  });

  /** What a broken upload must leave as it was: the chutes, the one updated, its configuration, and the changes. */
  async function state() {
    const chutes = await call(server, 'GET', '/chutes/');
    const hotspot = await call(server, 'GET', '/chutes/hotspot');
    const config = await call(server, 'GET', '/chutes/hotspot/config');
    const changes = await call(server, 'GET', '/changes/');
    return { chutes: chutes.body, hotspot: hotspot.body, config: config.body, changes: changes.body };
  }

  for (const [kind, good] of [
    ["a chute's source", SOURCE],
    ['an image archive', IMAGE_ARCHIVE],
  ] as const) {
    it(`responds with 422 naming body to every broken copy of ${kind} (cut short, damaged header, lying size field), on install and update, and changes nothing`, async () => {
      const before = await state();
      const broken = brokenTars(good);
      expect(broken.length).toBeGreaterThan(100);
      const wrong: string[] = [];
      for (const { what, bytes } of broken) {
        for (const [method, endpoint] of [
          ['POST', '/chutes/?name=uploaded'],
          ['PUT', '/chutes/hotspot'],
        ] as const) {
          const res = await fetch(`${server.url}/api/v1${endpoint}`, { method, headers: { 'content-type': 'application/x-tar' }, body: bytes });
          const text = await res.text();
          const paths =
            res.headers.get('content-type') === 'application/problem+json'
              ? (JSON.parse(text) as { errors?: { path: string }[] }).errors?.map((error) => error.path)
              : undefined;
          if (res.status !== 422 || paths?.join() !== 'body') wrong.push(`${method} ${endpoint}, ${what}: ${res.status} ${text}`);
        }
      }
      expect(wrong).toEqual([]);
      expect(await state()).toEqual(before);
    });
  }

  it('still installs from the good image archive and updates from the good source (the copies above were broken, not the originals)', async () => {
    const installed = await fetch(`${server.url}/api/v1/chutes/?name=uploaded`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-tar' },
      body: IMAGE_ARCHIVE,
    });
    expect(installed.status, await installed.text()).toBe(200);
    const updated = await fetch(`${server.url}/api/v1/chutes/hotspot`, { method: 'PUT', headers: { 'content-type': 'application/x-tar' }, body: SOURCE });
    expect(updated.status, await updated.text()).toBe(200);
  });
});
