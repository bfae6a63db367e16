import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, type HttpAnswer } from './support/http-client.ts';
import { serveArgs, useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * ETags and 304s over HTTP (functions/core/etag.ts): every GET's 200 has an ETag, a request whose
 * If-None-Match names it gets a 304 without a body, HEAD answers the GET's headers, on `emulate` and
 * on `serve`.
 */

const temp = useTempDir('chutebox-etag-');
const start = useChutebox();

const SSID = '/api/v1/chutes/hotspot/networks/guest/ssid';
const TAG = /^"[0-9a-f]{32}"$/;

/** GET `endpoint` with `If-None-Match: etag`. */
const getIfNoneMatch = <T = unknown>(server: Started, endpoint: string, etag: string) =>
  call<T>(server.url, 'GET', endpoint, { headers: { 'if-none-match': etag } });

/** Checks `answer` is a 304 with `etag`, the 200's `Vary`, and no body nor content type. */
function expectNotModified(answer: HttpAnswer, etag: string, vary: string | null = null): void {
  expect(answer.status).toBe(304);
  expect(answer.headers.get('etag')).toBe(etag);
  expect(answer.headers.get('vary')).toBe(vary);
  expect(answer.headers.get('content-type')).toBeNull();
  expect(answer.text).toBe('');
}

describe('chutebox emulate: ETags', () => {
  let server: Started;

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--no-auth', '--scenario', 'default']);
  });

  it('answers a 304 without a body to the ETag the GET answered, and the new body with a new ETag once a PUT changed it', async () => {
    const before = await call(server.url, 'GET', SSID);
    const old = before.headers.get('etag')!;
    expect(old).toMatch(TAG);
    expectNotModified(await getIfNoneMatch(server, SSID, old), old);

    expect((await call(server.url, 'PUT', SSID, { json: { ssid: 'etag-guest' } })).status).toBe(200);
    const after = await getIfNoneMatch<{ ssid: string }>(server, SSID, old);
    expect(after.status).toBe(200);
    expect(after.body.ssid).toBe('etag-guest');
    const current = after.headers.get('etag')!;
    expect(current).toMatch(TAG);
    expect(current).not.toBe(old);
    expectNotModified(await getIfNoneMatch(server, SSID, `W/"${old.slice(1, -1)}", ${current}`), current);
  });

  it('tags the JSON and the YAML of one resource apart, and keeps Vary on the 304', async () => {
    const hostconfig = '/api/v1/config/hostconfig';
    const json = await call(server.url, 'GET', hostconfig);
    const yaml = await call(server.url, 'GET', hostconfig, { headers: { accept: 'application/yaml' } });
    expect(yaml.type).toBe('application/yaml');
    expect(yaml.headers.get('etag')).not.toBe(json.headers.get('etag'));
    const again = await call(server.url, 'GET', hostconfig, { headers: { accept: 'application/yaml', 'if-none-match': json.headers.get('etag')! } });
    expect(again.status).toBe(200);
    expectNotModified(
      await call(server.url, 'GET', hostconfig, { headers: { accept: 'application/yaml', 'if-none-match': yaml.headers.get('etag')! } }),
      yaml.headers.get('etag')!,
      'accept',
    );
  });

  it('answers HEAD with the headers of the GET and no body', async () => {
    const get = await call(server.url, 'GET', '/api/v1/info/hardware');
    const head = await call(server.url, 'HEAD', '/api/v1/info/hardware');
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(head.type).toBe('application/json');
    expect(head.text).toBe('');
  });

  it('lets a page of another origin read the ETag', async () => {
    const answer = await call(server.url, 'GET', '/api/v1/info/features', { headers: { origin: 'https://dashboard.example' } });
    expect(answer.headers.get('access-control-expose-headers')?.split(',')).toContain('ETag');
  });

  it('answers no ETag on an error', async () => {
    const answer = await call(server.url, 'GET', '/api/v1/chutes/nope', { headers: { 'if-none-match': '*' } });
    expect(answer.status).toBe(404);
    expect(answer.headers.get('etag')).toBeNull();
  });
});

describe('chutebox serve: ETags', () => {
  let server: Started;

  beforeAll(async () => {
    const dir = temp.path();
    server = await start(serveArgs(path.join(dir, 'state'), path.join(dir, 'none.sock')));
  });

  it('answers a 304 without a body to the ETag the GET answered, and HEAD with its headers', async () => {
    const features = await call(server.url, 'GET', '/api/v1/info/features');
    const etag = features.headers.get('etag')!;
    expect(etag).toMatch(TAG);
    expectNotModified(await getIfNoneMatch(server, '/api/v1/info/features', etag), etag);
    expectNotModified(await getIfNoneMatch(server, '/api/v1/info/features', '*'), etag);
    const head = await call(server.url, 'HEAD', '/api/v1/info/features');
    expect(head.headers.get('etag')).toBe(etag);
    expect(head.text).toBe('');
  });

  it('answers the new body with a new ETag once the device changed (the clock of telemetry moved)', async () => {
    const first = await call<{ time: number }>(server.url, 'GET', '/api/v1/info/telemetry');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await getIfNoneMatch<{ time: number }>(server, '/api/v1/info/telemetry', first.headers.get('etag')!);
    expect(second.status).toBe(200);
    expect(second.body.time).toBeGreaterThan(first.body.time);
    expect(second.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });
});
