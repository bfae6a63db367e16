import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorApp } from '../emulator/app.ts';
import type { Problem } from '../functions/core/problem.ts';
import type { InputProblem } from './support/call-function.ts';
import { call, callApi, type HttpAnswer } from './support/http-client.ts';
import { DIST_FUNCTIONS } from './support/test-bundles.ts';
import { CLEAN_ENV, openApiVerdicts, startChutebox, useChutebox, type Started } from './support/spawn.ts';
import { openEvents } from './support/event-stream-client.ts';
import { openWebSocket } from './support/websocket-client.ts';

/*
 * `chutebox emulate --validate` (emulator/openapi-validator.ts): requests outside the OpenAPI document
 * answered with a problem naming the rule, after the credentials; answers that break it logged and
 * served unchanged; the admin API and websocket upgrades untouched. docs/decisions/0033-emulate-validate.md.
 */

const BAD_SSID = { ssid: 5 };

/** A request's answer and the lines the emulator logged about it. */
async function logged<T>(server: Started, send: () => Promise<HttpAnswer<T>>): Promise<{ answer: HttpAnswer<T>; lines: ReturnType<typeof openApiVerdicts> }> {
  const before = openApiVerdicts(server.output()).length;
  const answer = await send();
  await new Promise((done) => setTimeout(done, 50));
  return { answer, lines: openApiVerdicts(server.output()).slice(before) };
}

describe('chutebox emulate --validate', () => {
  const start = useChutebox();
  let server: Started;
  let authorization: string;
  const api = <T = unknown>(method: string, endpoint: string, body?: unknown, type?: string, headers: Record<string, string> = { authorization }) =>
    callApi<T>(server, method, endpoint, body, type, headers);

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0', '--change-delay', '0', '--validate']);
    const login = await callApi<{ token: string }>(server, 'POST', '/auth/local', { username: 'paradrop', password: '' });
    expect(login.status).toBe(200);
    authorization = `Bearer ${login.body.token}`;
  });

  it('says so when it starts', () => {
    expect(server.output()).toContain('requests outside the OpenAPI document are refused');
  });

  it('answers 422 naming the field for a body the document refuses, as the API does, and logs it', async () => {
    const { answer, lines } = await logged(server, () => api<Problem>('PUT', '/chutes/hotspot/networks/guest/ssid', BAD_SSID));
    expect(answer).toMatchObject({
      status: 422,
      type: 'application/problem+json',
      body: {
        type: 'about:blank',
        title: 'Unprocessable Content',
        status: 422,
        operation: 'networks-ssid-put',
        errors: [{ path: 'body.ssid', message: 'must be string' }],
      },
    });
    expect(answer.body.detail).toMatch(/outside the API's OpenAPI document .*body\.ssid must be string/);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(lines).toEqual([
      { kind: 'request', method: 'PUT', path: '/api/v1/chutes/hotspot/networks/guest/ssid', status: 422, rules: 'body.ssid must be string' },
    ]);
  });

  it('names every violation: a missing field, one the schema does not allow', async () => {
    const answer = await api<InputProblem>('POST', '/config/sshKeys/paradrop', {});
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/^body\.\w+$/), message: 'is required' })]),
    );
  });

  it('checks the credentials first: without them a request outside the document is still a 401', async () => {
    const answer = await api('PUT', '/chutes/hotspot/networks/guest/ssid', BAD_SSID, undefined, {});
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/Bearer/);
  });

  it('answers 400 naming a path parameter the document refuses', async () => {
    const answer = await api('GET', '/chutes/hotspot/networks/guest/stations/not-a-mac');
    expect(answer).toMatchObject({ status: 400, body: { errors: [{ path: 'params.mac', message: expect.stringMatching(/^must match pattern/) }] } });
  });

  it('answers 404 for a path and 405 (with Allow) for a method the document has not, as the API does, naming the rule', async () => {
    expect(await api('GET', '/no-such-thing')).toMatchObject({ status: 404, body: { errors: [{ path: 'path' }] } });
    const wrongMethod = await api('DELETE', '/chutes');
    expect(wrongMethod).toMatchObject({ status: 405, body: { errors: [{ path: 'method', message: 'must be one of GET, POST on /api/v1/chutes' }] } });
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
  });

  it('answers 415 naming the content type for a body of a media type the operation does not take', async () => {
    const answer = await api('PUT', '/chutes/hotspot/networks/guest/ssid', 'ssid=x', 'text/plain');
    expect(answer).toMatchObject({
      status: 415,
      body: { errors: [{ path: 'headers.content-type', message: 'must be one of application/json, not text/plain' }] },
    });
    // An upload's media type is all the document says of it.
    expect(await api('PUT', '/chutes/hello-world', '{}')).toMatchObject({ status: 415, body: { errors: [{ path: 'headers.content-type' }] } });
  });

  it('checks a YAML body against the same schema as JSON: 422 for a rule it breaks, 400 naming the body, line and column when it is no YAML', async () => {
    const answer = await api('PUT', '/chutes/hello-world/config', 'web:\n  port: eighty\n', 'application/yaml');
    expect(answer).toMatchObject({ status: 422, body: { errors: [{ path: 'body.web.port', message: 'must be number' }] } });
    const malformed = await api('PUT', '/chutes/hello-world/config', 'web: [\n', 'application/yaml');
    expect(malformed).toMatchObject({
      status: 400,
      body: { errors: [{ path: 'body', message: expect.stringMatching(/^is not valid YAML: .* at line \d+, column \d+$/) }] },
    });
  });

  it('answers 422 for a missing required body, as for any missing field', async () => {
    const answer = await call(server.url, 'PUT', '/api/v1/chutes/hotspot/networks/guest/ssid', { headers: { authorization } });
    expect(answer).toMatchObject({ status: 422, body: { errors: [{ path: 'body', message: expect.stringMatching(/^is required/) }] } });
  });

  it('reports the rules of the branch a network entry chose by its type and mode, or the values they may take', async () => {
    const install = (entry: Record<string, unknown>) =>
      api<InputProblem>('POST', '/chutes', { name: 'branchy', image: 'busybox:1', config: { net: { w: entry } } });
    const wifi = await install({ type: 'wifi', intfName: 'BAD', key: 'short' });
    expect(wifi.status).toBe(422);
    expect(wifi.body.errors).toEqual([
      { path: 'body.config.net.w.intfName', message: expect.stringMatching(/^must match pattern/) },
      { path: 'body.config.net.w.key', message: 'must NOT have fewer than 8 characters' },
    ]);
    const monitor = await install({ type: 'wifi', mode: 'monitor' });
    expect(monitor.body.errors).toEqual([{ path: 'body.config.net.w.intfName', message: 'is required' }]);
    const vlan = await install({ type: 'vlan', intfName: 'vlan0' });
    expect(vlan.body.errors).toEqual([{ path: 'body.config.net.w.vlan_id', message: 'is required' }]);
    expect((await install({ type: 'mesh', intfName: 'mesh0' })).body.errors).toEqual([
      { path: 'body.config.net.w.type', message: 'must be one of "wifi", "vlan"' },
    ]);
    expect((await install({ type: 'wifi', mode: 'mesh', intfName: 'w0' })).body.errors).toEqual([
      { path: 'body.config.net.w.mode', message: 'must be one of "ap", "monitor"' },
    ]);
    expect((await install({ intfName: 'w0' })).body.errors).toEqual([{ path: 'body.config.net.w.type', message: 'is required' }]);
  });

  it('passes a request the document takes to the handlers, which answer it, refinements of their own included', async () => {
    const { answer, lines } = await logged(server, () => api('PUT', '/chutes/hello-world/networks/wifi/ssid', { ssid: 'validated' }));
    expect(answer.status).toBe(200);
    expect((await api('GET', '/chutes/hello-world/networks/wifi/ssid')).body).toMatchObject({ ssid: 'validated' });
    // 20 characters the document takes, 40 bytes of UTF-8 the handler refuses (an SSID is at most 32): the handler's own 422.
    const long = await api<Problem>('PUT', '/chutes/hello-world/networks/wifi/ssid', { ssid: 'é'.repeat(20) });
    expect(long).toMatchObject({ status: 422, body: { errors: [{ path: 'body.ssid' }] } });
    expect(long.body.operation).toBeUndefined();
    expect(lines).toEqual([]);
  });

  it('checks the query parameters the document names, and lets others through, as OpenAPI allows', async () => {
    expect((await api('GET', '/chutes?unknown=1')).status).toBe(200);
    expect(await api('GET', '/changes?limit=ten')).toMatchObject({ status: 400, body: { errors: [{ path: 'query.limit' }] } });
  });

  it('passes the events stream on at once without reading it, and refuses a malformed filter as the API does', async () => {
    const stream = await openEvents(server.url, '?kind=chute.state', { authorization });
    if (!('events' in stream)) throw new Error(`GET /api/v1/events answered ${stream.status}: ${stream.text}`);
    await api('POST', '/chutes/hotspot/stop');
    expect((await stream.next((event) => event.event === 'chute.state')).data).toMatchObject({ chute: 'hotspot', state: 'stopped' });
    stream.close();
    await api('POST', '/chutes/hotspot/start');
    expect(await api('GET', '/events?kind=everything')).toMatchObject({ status: 400, body: { errors: [{ path: 'query.kind' }] } });
    expect(await api('GET', '/events?kind=chute.exploded')).toMatchObject({ status: 422, body: { errors: [{ path: 'query.kind' }] } });
  });

  it('leaves /_chutebox/state alone: its answers are its own, nothing is logged', async () => {
    const { answer, lines } = await logged(server, () => call(server.url, 'GET', '/_chutebox/state', { headers: { authorization } }));
    expect(answer.status).toBe(200);
    const refused = await call<Problem>(server.url, 'PUT', '/_chutebox/state', { headers: { authorization }, json: { version: 'x' } });
    expect(refused).toMatchObject({ status: 422 });
    expect(refused.body.operation).toBeUndefined();
    expect(lines).toEqual([]);
    expect(openApiVerdicts(server.output()).filter((line) => line.path.startsWith('/_chutebox'))).toEqual([]);
  });

  it('passes websocket upgrades untouched; a GET of a websocket path without Upgrade is outside the document: 426, as the API answers', async () => {
    const ws = await openWebSocket(`${server.url}/ws/changes/1/stream`, { authorization });
    // No change 1 yet, or one: either way the answer is the API's own, not the validator's.
    if ('status' in ws) expect(ws.body).not.toHaveProperty('operation');
    else ws.close();
    const plain = await call(server.url, 'GET', '/api/v1/chutes/hotspot/networks/guest/hostapd_control/ws', { headers: { authorization } });
    expect(plain).toMatchObject({ status: 426, body: { errors: [{ path: 'headers.upgrade', message: 'is required' }] } });
    expect(plain.headers.get('upgrade')).toBe('websocket');
  });
});

describe('chutebox emulate --validate with an answer that breaks the document', () => {
  const start = useChutebox();
  let dir: string;
  let server: Started;

  beforeAll(async () => {
    // GET /api/v1/info/features answering an object where the document says a list of strings, and the
    // document from the bundle of GET /api/v1/openapi.json (no openapi.json beside this folder).
    dir = await mkdtemp(path.join(tmpdir(), 'chutebox-validate-'));
    await copyFile(path.join(DIST_FUNCTIONS, 'meta-openapi-get.mjs'), path.join(dir, 'meta-openapi-get.mjs'));
    await writeFile(
      path.join(dir, 'info-features-get.mjs'),
      `export const route = { method: 'GET', path: '/api/v1/info/features', summary: 'answers what the document does not say' };
export const invoke = async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ features: 'all' }) });
export const handler = async () => ({});`,
    );
    server = await start(['emulate', '--port', '0', '--no-auth', '--functions', dir, '--validate']);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('serves it unchanged and logs one line naming method, path, status and the rule', async () => {
    const { answer, lines } = await logged(server, () => callApi(server, 'GET', '/info/features'));
    expect(answer).toMatchObject({ status: 200, body: { features: 'all' } });
    expect(lines).toEqual([{ kind: 'answer', method: 'GET', path: '/api/v1/info/features', status: 200, rules: 'body must be array' }]);
    expect(server.output()).toMatch(/^openapi: answer GET \/api\/v1\/info\/features 200: body must be array$/m);
  });

  it('makes the HTTP tests fail: an emulator started without a flag of its own checks itself with --validate-log when it stops', async () => {
    const unchecked = await startChutebox(['emulate', '--port', '0', '--no-auth', '--functions', dir]);
    try {
      expect((await callApi(unchecked, 'GET', '/info/features')).status).toBe(200);
      expect(openApiVerdicts(unchecked.output())).toHaveLength(1);
    } finally {
      await expect(unchecked.stop()).rejects.toThrow(/an answer breaks the document: GET \/api\/v1\/info\/features 200: body must be array/);
    }
  });
});

describe('CHUTEBOX_VALIDATE=1', () => {
  const start = useChutebox();

  it('turns --validate on', async () => {
    const server = await start(['emulate', '--port', '0', '--no-auth'], { ...CLEAN_ENV, CHUTEBOX_VALIDATE: '1' });
    expect(server.output()).toContain('requests outside the OpenAPI document are refused');
    expect(await callApi(server, 'PUT', '/chutes/hotspot/networks/guest/ssid', BAD_SSID)).toMatchObject({
      status: 422,
      body: { operation: 'networks-ssid-put' },
    });
  });
});

describe('emulatorApp({ validate }) in process', () => {
  const functionsDir = fileURLToPath(new URL('../dist/functions/', import.meta.url));

  it('answers the 422 itself with validate: true, and the handlers with validate: "log"', async () => {
    const lines: string[] = [];
    const original = console.error;
    console.error = (line: string) => void lines.push(line);
    try {
      const refusing = await emulatorApp({ functionsDir, auth: false, validate: true });
      const request = () =>
        new Request('http://router.test/api/v1/chutes/hotspot/networks/guest/ssid', {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(BAD_SSID),
        });
      const refused = await refusing.app.fetch(request());
      expect(refused.status).toBe(422);
      expect(await refused.json()).toMatchObject({ errors: [{ path: 'body.ssid', message: 'must be string' }] });

      const logging = await emulatorApp({ functionsDir, auth: false, validate: 'log' });
      const served = await logging.app.fetch(request());
      expect(served.status).toBe(422);
      expect(lines).toEqual([
        'openapi: request PUT /api/v1/chutes/hotspot/networks/guest/ssid 422 refused: body.ssid must be string',
        'openapi: request PUT /api/v1/chutes/hotspot/networks/guest/ssid 422 served: body.ssid must be string',
      ]);
    } finally {
      console.error = original;
    }
  });
});
