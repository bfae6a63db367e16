import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HostConfig } from '../functions/config/host-config.ts';
import type { ChangeAccepted } from '../functions/chutes/schemas.ts';
import type { Problem } from '../functions/core/problem.ts';
import { call, finalChange } from './support/http-client.ts';
import { rawCall } from './support/raw-http.ts';
import { CLI, serveArgs, useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { openWebSocket, opened, refused } from './support/websocket-client.ts';

/**
 * What a web page in a browser on the device can do to `chutebox serve` and `chutebox emulate`,
 * over HTTP: a server that asks no credentials (no password set, `emulate --no-auth`) answers no
 * page of another origin and no name but its loopback ones (DNS rebinding); one that asks them
 * answers as before (docs/decisions/0040-browsers-and-a-device-without-a-password.md).
 */

const temp = useTempDir('chutebox-browsers-');
const start = useChutebox();

const EVIL = 'http://evil.example';
/** An origin listed with --cors-origin. */
const PORTAL = 'https://portal.example';
const FACTORY_RESET = '/api/v1/config/factoryReset';
const HOSTCONFIG = '/api/v1/config/hostconfig';
const PASSWORD = 'a browser password';
const BASIC = `Basic ${Buffer.from(`paradrop:${PASSWORD}`).toString('base64')}`;

/** `chutebox serve` on loopback with a state folder of its own, no engine; with a password when given one. */
async function serve(name: string, password?: string): Promise<Started> {
  const stateDir = path.join(await temp.folder(name), 'state');
  if (password !== undefined) expect(spawnSync(process.execPath, [CLI, 'passwd', '--state-dir', stateDir], { input: `${password}\n` }).status).toBe(0);
  return start(serveArgs(stateDir, path.join(temp.path(), 'none.sock')));
}

/** A browser's preflight for a PUT with a JSON body from `origin`. */
const preflight = (server: Started, origin: string) =>
  call(server.url, 'OPTIONS', HOSTCONFIG, { headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' } });

/** The host configuration with another hostname. */
const renamed = (config: HostConfig, hostname: string) => ({ ...config, system: { ...config.system, hostname } });

/** PUTs the host configuration with another hostname, waits for the change and answers its id. */
async function rename(server: Started, config: HostConfig, hostname: string, headers: Record<string, string> = {}): Promise<number> {
  const answer = await call<ChangeAccepted>(server.url, 'PUT', HOSTCONFIG, { json: renamed(config, hostname), headers });
  expect(answer.status, answer.text).toBe(200);
  const { origin: _, ...credentials } = headers;
  expect((await finalChange(server.url, answer.body.change_id, credentials)).state).toBe('succeeded');
  return answer.body.change_id;
}

/** A 403 problem that says why and what to do. */
function expectRefused(answer: { status: number; body: unknown }, why: RegExp) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(403);
  expect(answer.body).toMatchObject({ type: 'about:blank', title: 'Forbidden', status: 403 });
  const { detail } = answer.body as Problem;
  expect(detail).toMatch(why);
  expect(detail).toContain('chutebox passwd');
}

const OTHER_ORIGIN = /another origin/;

/** A 403 problem saying that a page of another origin must log in and send a token. */
function expectBearerAsked(answer: { status: number; body: unknown }) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(403);
  expect(answer.body).toMatchObject({ type: 'about:blank', title: 'Forbidden', status: 403 });
  const { detail } = answer.body as Problem;
  expect(detail).toContain(`not from a page of ${EVIL}`);
  expect(detail).toMatch(/POST \/api\/v1\/auth\/local[\s\S]*Authorization: Bearer/);
}

/** A login from a page of `origin`: the token. */
async function login(server: Started, password: string, origin: string): Promise<{ token: string }> {
  const answer = await call<{ token: string }>(server.url, 'POST', '/api/v1/auth/local', { json: { username: 'paradrop', password }, headers: { origin } });
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}
const OTHER_HOST = /localhost or a loopback address/;

describe('chutebox serve without a password, to a web page', () => {
  let server: Started;
  let config: HostConfig;
  let own: string;

  beforeAll(async () => {
    server = await serve('open');
    own = new URL(server.url).origin;
    config = (await call<HostConfig>(server.url, 'GET', HOSTCONFIG)).body;
  });

  it('refuses a preflight from another origin with a 403 problem and no CORS allowance', async () => {
    const answer = await preflight(server, EVIL);
    expectRefused(answer, OTHER_ORIGIN);
    expect(answer.type).toBe('application/problem+json');
    expect(answer.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('refuses a PUT from a page of another origin, and the hostname stays as it was', async () => {
    const answer = await call(server.url, 'PUT', HOSTCONFIG, { json: renamed(config, 'evil'), headers: { origin: EVIL } });
    expectRefused(answer, OTHER_ORIGIN);
    expect(answer.type).toBe('application/problem+json');
    expect((await call(server.url, 'GET', HOSTCONFIG)).body).toEqual(config);
  });

  it('takes the same PUT from its own page, and from a client that sends no Origin', async () => {
    for (const [hostname, headers] of [
      ['own-page', { origin: own }],
      ['no-page', {}],
    ] as const) {
      await rename(server, config, hostname, headers);
      expect((await call<HostConfig>(server.url, 'GET', HOSTCONFIG)).body.system?.hostname).toBe(hostname);
    }
  });

  it.each(['/api/v1/info/features', '/docs', '/ws/changes/1/stream'])(
    'refuses GET %s naming it by another Host (DNS rebinding) with a 403 problem',
    async (endpoint) => {
      const answer = await rawCall(server.url, 'GET', endpoint, { host: `rebind.evil.example:${new URL(server.url).port}` });
      expect(answer.headers['content-type']).toBe('application/problem+json');
      expectRefused({ ...answer, body: JSON.parse(answer.body) }, OTHER_HOST);
    },
  );

  it.each(['localhost', '127.0.0.1', '[::1]', '0.0.0.0'])('answers GET /api/v1/info/features naming it %s', async (name) => {
    expect((await rawCall(server.url, 'GET', '/api/v1/info/features', { host: `${name}:${new URL(server.url).port}` })).status).toBe(200);
  });

  it('answers a login with 401 whatever page sends it: no login succeeds without a password', async () => {
    const answer = await call(server.url, 'POST', '/api/v1/auth/local', { json: { username: 'paradrop', password: '' }, headers: { origin: EVIL } });
    expect(answer).toMatchObject({ status: 401, body: { username: 'paradrop', success: false } });
  });

  it('refuses the change stream to a page of another origin, and opens it to its own', async () => {
    const stream = `${server.url}/ws/changes/${await rename(server, config, 'streamed')}/stream`;
    expectRefused(refused(await openWebSocket(stream, { origin: EVIL })), OTHER_ORIGIN);
    const ws = opened(await openWebSocket(stream, { origin: own }));
    expect(JSON.parse(await ws.next())).toMatchObject({ message: expect.any(String) });
    ws.close();
    await ws.closed;
  });

  it('refuses the hostapd control websocket to a page of another origin before it looks for the network', async () => {
    const answer = refused(await openWebSocket(`${server.url}/api/v1/chutes/nope/networks/wifi/hostapd_control/ws`, { origin: EVIL }));
    expectRefused(answer, OTHER_ORIGIN);
  });
});

describe('chutebox serve with a password, to a web page', () => {
  let server: Started;
  let config: HostConfig;
  let own: string;
  let token: string;
  const withCredentials = (headers: Record<string, string> = {}) => ({ authorization: BASIC, ...headers });

  beforeAll(async () => {
    server = await serve('password', PASSWORD);
    own = new URL(server.url).origin;
    config = (await call<HostConfig>(server.url, 'GET', HOSTCONFIG, { headers: withCredentials() })).body;
    token = (await login(server, PASSWORD, EVIL)).token;
  });

  it('allows a preflight from any origin, as --cors-origin * says: the request itself needs credentials', async () => {
    const answer = await preflight(server, EVIL);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-allow-methods')).toContain('PUT');
  });

  it("refuses another site's form POST to factoryReset with the browser's remembered Basic credentials, and nothing is reset", async () => {
    const changes = await call(server.url, 'GET', '/api/v1/changes', { headers: withCredentials() });
    expectBearerAsked(await call(server.url, 'POST', FACTORY_RESET, { headers: withCredentials({ origin: EVIL }) }));
    expect((await call(server.url, 'GET', '/api/v1/changes', { headers: withCredentials() })).body).toEqual(changes.body);
    expect((await call(server.url, 'GET', HOSTCONFIG)).status).toBe(401);
    expect((await call(server.url, 'GET', HOSTCONFIG, { headers: withCredentials() })).body).toEqual(config);
  });

  it('refuses a PUT from another origin without credentials with 401, and takes it with a token', async () => {
    expect((await call(server.url, 'PUT', HOSTCONFIG, { json: renamed(config, 'evil'), headers: { origin: EVIL } })).status).toBe(401);
    await rename(server, config, 'elsewhere', { authorization: `Bearer ${token}`, origin: EVIL });
    expect((await call<HostConfig>(server.url, 'GET', HOSTCONFIG, { headers: withCredentials() })).body.system?.hostname).toBe('elsewhere');
  });

  it('takes Basic credentials from its own page, and from a client that sends no Origin', async () => {
    for (const [hostname, headers] of [
      ['own-page', withCredentials({ origin: own })],
      ['no-page', withCredentials()],
    ] as const) {
      await rename(server, config, hostname, headers);
      expect((await call<HostConfig>(server.url, 'GET', HOSTCONFIG, { headers: withCredentials() })).body.system?.hostname).toBe(hostname);
    }
  });

  it('answers a request with credentials whatever Host names it', async () => {
    const answer = await rawCall(server.url, 'GET', '/api/v1/info/features', withCredentials({ host: 'rebind.evil.example' }));
    expect(answer.status).toBe(200);
  });

  it('refuses the change stream to a page of another origin with Basic credentials, and opens it with a token', async () => {
    const id = await rename(server, config, 'streamed', withCredentials());
    const stream = `${server.url}/ws/changes/${id}/stream`;
    expectBearerAsked(refused(await openWebSocket(stream, withCredentials({ origin: EVIL }))));
    const ws = opened(await openWebSocket(stream, { authorization: `Bearer ${token}`, origin: EVIL }));
    expect(JSON.parse(await ws.next())).toMatchObject({ message: expect.any(String) });
    ws.close();
    await ws.closed;
  });
});

describe('chutebox emulate --no-auth, to a web page', () => {
  let server: Started;
  const SSID = '/api/v1/chutes/hotspot/networks/guest/ssid';

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--no-auth']);
  });

  it('refuses a preflight and a PUT from another origin, and the SSID stays as it was', async () => {
    expectRefused(await preflight(server, EVIL), OTHER_ORIGIN);
    const before = (await call(server.url, 'GET', SSID)).body;
    expectRefused(await call(server.url, 'PUT', SSID, { json: { ssid: 'evil' }, headers: { origin: EVIL } }), OTHER_ORIGIN);
    expect((await call(server.url, 'GET', SSID)).body).toEqual(before);
  });

  it("refuses a PUT of the emulator's state from another origin", async () => {
    const state = (await call(server.url, 'GET', '/_chutebox/state')).body;
    expectRefused(await call(server.url, 'PUT', '/_chutebox/state', { json: state, headers: { origin: EVIL } }), OTHER_ORIGIN);
  });

  it('refuses a request naming it by another Host, and answers one naming it localhost', async () => {
    const port = new URL(server.url).port;
    const answer = await rawCall(server.url, 'GET', '/api/v1/info/features', { host: `rebind.evil.example:${port}` });
    expectRefused({ ...answer, body: JSON.parse(answer.body) }, OTHER_HOST);
    expect((await rawCall(server.url, 'GET', '/api/v1/info/features', { host: `localhost:${port}` })).status).toBe(200);
  });

  it('refuses the hostapd control websocket to a page of another origin', async () => {
    expectRefused(refused(await openWebSocket(`${server.url}/api/v1/chutes/hotspot/networks/wifi/hostapd_control/ws`, { origin: EVIL })), OTHER_ORIGIN);
  });
});

describe('chutebox emulate with its account, to a web page', () => {
  const EMULATOR_BASIC = `Basic ${btoa('paradrop:')}`;
  const STOP = '/api/v1/chutes/hotspot/stop';
  let server: Started;

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--cors-origin', PORTAL]);
  });

  /** The emulated device as `GET /_chutebox/state` exports it, but for its clock, which runs on. */
  async function state(): Promise<unknown> {
    const { clock: _, ...device } = (await call<Record<string, unknown>>(server.url, 'GET', '/_chutebox/state', { headers: { authorization: EMULATOR_BASIC } }))
      .body;
    return device;
  }

  it("refuses another site's form POSTs with the remembered Basic credentials, and the device stays as it was", async () => {
    const before = await state();
    for (const endpoint of [FACTORY_RESET, STOP, '/_chutebox/state/reset']) {
      expectBearerAsked(await call(server.url, 'POST', endpoint, { headers: { authorization: EMULATOR_BASIC, origin: EVIL } }));
    }
    expect(await state()).toEqual(before);
  });

  it('allows a preflight from any origin, and answers a page of any origin that logs in with the empty password and sends the token', async () => {
    expect((await preflight(server, EVIL)).status).toBe(204);
    const { token } = await login(server, '', EVIL);
    const answer = await call<ChangeAccepted>(server.url, 'POST', STOP, { headers: { origin: EVIL, authorization: `Bearer ${token}` } });
    expect(answer.status, answer.text).toBe(200);
    expect((await finalChange(server.url, answer.body.change_id, { authorization: `Bearer ${token}` })).state).toBe('succeeded');
  });

  it('takes Basic credentials from its own page, a page of an origin --cors-origin lists, and a client that sends no Origin', async () => {
    for (const headers of [{ origin: new URL(server.url).origin }, { origin: PORTAL }, {}] as Record<string, string>[]) {
      const answer = await call(server.url, 'GET', '/api/v1/info/features', { headers: { authorization: EMULATOR_BASIC, ...headers } });
      expect(answer.status, JSON.stringify(headers)).toBe(200);
    }
  });
});
