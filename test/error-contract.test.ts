import { beforeAll, describe, expect, it } from 'vitest';
import type { InputProblem } from './support/call-function.ts';
import { callApi, getJson, type HttpAnswer } from './support/http-client.ts';
import { useChutebox, type Started } from './support/spawn.ts';

/*
 * One error contract (docs/api/README.md#errors): a request that cannot be read is a 400, one that is
 * read but breaks a rule (a missing field, a wrong type) a 422, and every error names its field from
 * the part of the request it is in (`body.…`, `params.…`, `query.…`, `headers.…`). The same bad
 * requests, sent to `emulate` (its handlers answer) and to `emulate --validate` (the OpenAPI
 * validator answers first), get the same status and the same field paths.
 */

const SSID = '/chutes/hello-world/networks/wifi/ssid';

/** An install of a chute whose configuration has the network `w`. */
function install(entry: Record<string, unknown>, name = 'contract'): unknown {
  return { name, image: 'busybox:1', config: { net: { w: entry } } };
}

/** A bad request: what it sends, and the status and field paths (sorted) the API answers it with. */
interface BadRequest {
  what: string;
  method: string;
  endpoint: string;
  body?: unknown;
  type?: string;
  status: number;
  paths: string[];
}

const BAD_REQUESTS: BadRequest[] = [
  { what: 'a missing field', method: 'PUT', endpoint: SSID, body: { name: 'x' }, status: 422, paths: ['body.ssid'] },
  { what: 'a field of the wrong type', method: 'PUT', endpoint: SSID, body: { ssid: 5 }, status: 422, paths: ['body.ssid'] },
  { what: 'an SSID over 32 characters', method: 'PUT', endpoint: SSID, body: { ssid: 'x'.repeat(33) }, status: 422, paths: ['body.ssid'] },
  { what: 'an SSID over 32 bytes of UTF-8', method: 'PUT', endpoint: SSID, body: { ssid: 'é'.repeat(20) }, status: 422, paths: ['body.ssid'] },
  { what: 'no body where one is required', method: 'PUT', endpoint: SSID, status: 422, paths: ['body'] },
  { what: 'a body that is a list', method: 'PUT', endpoint: SSID, body: [1], status: 422, paths: ['body'] },
  { what: 'malformed JSON', method: 'PUT', endpoint: SSID, body: '{"ssid": ', status: 400, paths: ['body'] },
  { what: 'a body of a media type not taken', method: 'PUT', endpoint: SSID, body: 'ssid=x', type: 'text/plain', status: 415, paths: ['headers.content-type'] },
  {
    what: 'a bad install name and a Wi-Fi network with a bad intfName, a short key and an SSID over 32 bytes',
    method: 'POST',
    endpoint: '/chutes',
    body: install({ type: 'wifi', intfName: 'BAD', key: 'short', ssid: 'y'.repeat(33) }, 'bad name'),
    status: 422,
    paths: ['body.config.net.w.intfName', 'body.config.net.w.key', 'body.config.net.w.ssid', 'body.name'],
  },
  { what: 'a network without a type', method: 'POST', endpoint: '/chutes', body: install({ intfName: 'w0' }), status: 422, paths: ['body.config.net.w.type'] },
  {
    what: 'a Wi-Fi network of an unknown mode',
    method: 'POST',
    endpoint: '/chutes',
    body: install({ type: 'wifi', mode: 'mesh', intfName: 'w0' }),
    status: 422,
    paths: ['body.config.net.w.mode'],
  },
  {
    what: 'a VLAN without its id',
    method: 'POST',
    endpoint: '/chutes',
    body: install({ type: 'vlan', intfName: 'v0' }),
    status: 422,
    paths: ['body.config.net.w.vlan_id'],
  },
  { what: 'malformed YAML', method: 'POST', endpoint: '/chutes', body: 'name: [x\n', type: 'application/yaml', status: 400, paths: ['body'] },
  {
    what: 'a chute configuration in YAML with a wrong type',
    method: 'PUT',
    endpoint: '/chutes/hello-world/config',
    body: 'web:\n  port: eighty\n',
    type: 'application/yaml',
    status: 422,
    paths: ['body.web.port'],
  },
  {
    what: "a host configuration in ParaDrop's wrapper",
    method: 'PUT',
    endpoint: '/config/hostconfig',
    body: { config: { lan: 5 } },
    status: 422,
    paths: ['body.config.firewall', 'body.config.lan'],
  },
  { what: 'a host configuration', method: 'PUT', endpoint: '/config/hostconfig', body: { lan: 5 }, status: 422, paths: ['body.firewall', 'body.lan'] },
  { what: 'a device change without its type', method: 'POST', endpoint: '/changes', body: { updateClass: 'ROUTER' }, status: 422, paths: ['body.updateType'] },
  { what: 'a malformed query parameter', method: 'GET', endpoint: '/changes?limit=ten', status: 400, paths: ['query.limit'] },
  { what: 'a query parameter out of range', method: 'GET', endpoint: '/changes?limit=500', status: 422, paths: ['query.limit'] },
  { what: 'a malformed path parameter', method: 'GET', endpoint: '/chutes/hello-world/networks/wifi/stations/not-a-mac', status: 400, paths: ['params.mac'] },
  { what: 'an SSH key body without its key', method: 'POST', endpoint: '/config/sshKeys/paradrop', body: {}, status: 422, paths: ['body.key'] },
  {
    what: 'provisioning with a router id of the wrong type',
    method: 'POST',
    endpoint: '/config/provision',
    body: { routerId: 5 },
    status: 422,
    paths: ['body.apitoken', 'body.pdserver', 'body.routerId', 'body.wampRouter'],
  },
  {
    what: 'an environment value of the wrong type',
    method: 'POST',
    endpoint: '/chutes/hello-world/start',
    body: { environment: { A: 5 } },
    status: 422,
    paths: ['body.environment.A'],
  },
  {
    what: 'a login with a username of the wrong type',
    method: 'POST',
    endpoint: '/auth/local',
    body: { username: 5 },
    status: 422,
    paths: ['body.password', 'body.username'],
  },
];

/** The status and the sorted field paths of an answer. */
function contract(answer: HttpAnswer<Partial<InputProblem> | undefined>): { status: number; paths: string[] } {
  const errors = answer.body?.errors ?? [];
  return { status: answer.status, paths: errors.map((error) => error.path).sort() };
}

describe('the same bad requests with and without emulate --validate', () => {
  const start = useChutebox();
  const servers: { name: string; server: Started; authorization: string }[] = [];

  beforeAll(async () => {
    for (const [name, flags] of [
      ['emulate', []],
      ['emulate --validate', ['--validate']],
    ] as const) {
      const server = await start(['emulate', '--port', '0', '--change-delay', '0', ...flags]);
      const login = await callApi<{ token: string }>(server, 'POST', '/auth/local', { username: 'paradrop', password: '' });
      expect(login.status).toBe(200);
      servers.push({ name, server, authorization: `Bearer ${login.body.token}` });
    }
  });

  it('get the same status and field paths, 400 for what cannot be read and 422 for a rule broken, and change nothing', async () => {
    const before = await Promise.all(servers.map(({ server, authorization }) => getJson(server, '/changes', { authorization })));
    const wrong: string[] = [];
    for (const bad of BAD_REQUESTS) {
      for (const { name, server, authorization } of servers) {
        const answer = await callApi<Partial<InputProblem> | undefined>(server, bad.method, bad.endpoint, bad.body, bad.type, { authorization });
        const got = contract(answer);
        if (answer.type !== 'application/problem+json' || got.status !== bad.status || got.paths.join() !== bad.paths.join()) {
          wrong.push(`${name}: ${bad.what}: ${got.status} ${got.paths.join(', ')} (${answer.text})`);
        }
      }
    }
    expect(wrong).toEqual([]);
    const after = await Promise.all(servers.map(({ server, authorization }) => getJson(server, '/changes', { authorization })));
    expect(after).toEqual(before);
  });
});
