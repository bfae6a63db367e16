import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { openEvents } from './support/event-stream-client.ts';
import { useChutebox, type Started } from './support/spawn.ts';

/*
 * dist/openapi.json, which the build generates from the endpoint modules (functions/core/openapi/,
 * runtime/http/openapi.ts): a valid OpenAPI 3.1 document, that describes every route the build
 * mounts, and whose schemas take what the emulator answers. `chutebox emulate` answers it at
 * GET /api/v1/openapi.json.
 */

const DIST = new URL('../dist/', import.meta.url);

interface Manifest {
  functions: { name: string; method: string; path: string; aliases?: string[] }[];
}
type Answer = { $ref?: string; content?: Record<string, { schema: unknown; example?: unknown }> };
type Operation = { operationId: string; responses: Record<string, Answer> };
interface Document {
  openapi: string;
  servers: { url: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, Answer>; securitySchemes: Record<string, unknown> };
  security: Record<string, string[]>[];
}

let document: Document;
let manifest: Manifest;
let ajv: Ajv2020;

beforeAll(async () => {
  document = JSON.parse(await readFile(new URL('openapi.json', DIST), 'utf8')) as Document;
  manifest = JSON.parse(await readFile(new URL('manifest.json', DIST), 'utf8')) as Manifest;
  // The document's components as `$defs` of one schema, so that each of its `$ref`s resolves there.
  const defs = JSON.parse(JSON.stringify(document.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/'));
  // Strict, but for `type: [a, b]`, which zod writes for a union of primitives and JSON Schema allows.
  ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'chutebox', $defs: defs });
});

/** A JSON Schema validator of a schema of the document (a `$ref` to a component, or one in place). */
function validatorOf(schema: unknown): ValidateFunction {
  const text = JSON.stringify(schema).replaceAll('"#/components/schemas/', '"chutebox#/$defs/');
  return ajv.compile(JSON.parse(text) as object);
}

/** The schema of an operation's answer of `status` (JSON, or a problem), through a component response. */
function answerSchema(path: string, method: string, status = '200'): unknown {
  const operation = document.paths[path]?.[method];
  expect(operation, `${method.toUpperCase()} ${path} is in the document`).toBeDefined();
  let answer = operation!.responses[status]!;
  if (answer.$ref !== undefined) answer = document.components.responses[answer.$ref.replace('#/components/responses/', '')]!;
  return (answer.content?.['application/json'] ?? answer.content?.['application/problem+json'])!.schema;
}

/** An object without one of its fields. */
function without(value: Record<string, unknown>, field: string): Record<string, unknown> {
  const { [field]: _, ...rest } = value;
  return rest;
}

/** `/api/v1/chutes/:chute` → `/api/v1/chutes/{chute}`. */
const documentPath = (routePath: string) => routePath.replace(/:(\w+)/g, '{$1}');

describe('dist/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document, every $ref resolving (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('names its server relative to where it was fetched from: the host that serves it, at its root', () => {
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('has schemas that are JSON Schema 2020-12, compiled by ajv in strict mode', () => {
    expect(Object.keys(document.components.schemas).length).toBeGreaterThan(20);
    for (const name of Object.keys(document.components.schemas)) expect(() => validatorOf({ $ref: `#/components/schemas/${name}` }), name).not.toThrow();
  });

  it("describes every route of dist/manifest.json with its method, and nothing else but the login, the passwords, the websockets and a chute's streamed log, the metrics, the daemon's log and the events stream", () => {
    const routes = manifest.functions.flatMap((fn) => [fn.path, ...(fn.aliases ?? [])].map((path) => `${fn.method} ${documentPath(path)}`));
    routes.push(
      'POST /api/v1/auth/local',
      'POST /api/v1/auth/cloud',
      'POST /api/v1/password/change',
      'POST /api/v1/password/clear',
      'GET /api/v1/events',
      'GET /api/v1/chutes/{chute}/networks/{network}/hostapd_control/ws',
      'GET /ws/changes/{id}/stream',
      'GET /api/v1/chutes/{chute}/logs',
      'GET /ws/chute_logs/{chute}',
      'GET /sockjs/logs/{chute}',
      'GET /metrics',
      'GET /api/v1/logs',
      'GET /ws/paradrop_logs',
    );
    const described = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect(described.sort()).toEqual(routes.sort());
    expect(manifest.functions.map((fn) => document.paths[documentPath(fn.path)]?.[fn.method.toLowerCase()]?.operationId).sort()).toEqual(
      manifest.functions.map((fn) => fn.name).sort(),
    );
  });

  it('takes a Bearer token or HTTP Basic everywhere but at the login and the document itself, and answers the websockets 101', () => {
    expect(document.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      basic: expect.objectContaining({ type: 'http', scheme: 'basic' }),
    });
    expect(document.security).toEqual([{ bearer: [] }, { basic: [] }]);
    expect(document.paths['/api/v1/auth/local']!.post).toMatchObject({ security: [], responses: { 200: {}, 401: {} } });
    expect(document.paths['/api/v1/openapi.json']!.get).toMatchObject({ security: [] });
    expect(Object.keys(document.paths['/api/v1/openapi.json']!.get!.responses)).not.toContain('401');
    expect(Object.keys(document.paths['/ws/changes/{id}/stream']!.get!.responses)).toContain('101');
    expect(document.paths['/api/v1/chutes/{chute}']!.get!.responses).toMatchObject({
      401: { $ref: '#/components/responses/Unauthorized' },
      404: { $ref: '#/components/responses/NotFound' },
      default: { $ref: '#/components/responses/Problem' },
    });
  });

  it("describes a chute's log as newline-delimited JSON, each line a ChuteLogLine naming its service, with its query and no ETag", () => {
    const logs = document.paths['/api/v1/chutes/{chute}/logs']!.get! as Operation & { parameters: { name: string; in: string }[] };
    expect(logs.operationId).toBe('chutes-logs-get');
    expect(Object.keys(logs.responses['200']!.content!)).toEqual(['application/x-ndjson']);
    expect(logs.responses['200']!.content!['application/x-ndjson']!.schema).toEqual({ $ref: '#/components/schemas/ChuteLogLine' });
    expect(logs.parameters.map((p) => `${p.in} ${p.name}`)).toEqual([
      'path chute',
      'query follow',
      'query since',
      'query until',
      'query tail',
      'query timestamps',
    ]);
    expect(Object.keys(logs.responses)).not.toContain('304');
    const line = validatorOf({ $ref: '#/components/schemas/ChuteLogLine' });
    expect(line({ time: '2025-11-21T10:00:12.775588093Z', service: 'web', stream: 'stderr', message: 'response:200' })).toBe(true);
    expect(line({ time: '2025-11-21T10:00:12.775588093Z', stream: 'stderr', message: 'response:200' })).toBe(false);
    expect(line({ time: '2025-11-21T10:00:12Z', service: 'web', stream: 'console', message: 'x' })).toBe(false);
  });

  it('has examples from the default scenario, each accepted by its schema', () => {
    const examples = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, operation]) => {
        const media = operation.responses['200']?.content?.['application/json'];
        return media?.example === undefined ? [] : [{ at: `${method.toUpperCase()} ${path}`, ...media }];
      }),
    );
    expect(examples.map((example) => example.at)).toEqual(
      expect.arrayContaining(['GET /api/v1/chutes', 'GET /api/v1/info/hardware', 'GET /api/v1/chutes/{chute}/networks/{network}/stations/{mac}']),
    );
    for (const { at, schema, example } of examples) {
      const validate = validatorOf(schema);
      expect(validate(example) ? [] : validate.errors, at).toEqual([]);
    }
  });
});

describe('GET /api/v1/openapi.json on chutebox emulate', () => {
  const start = useChutebox();
  let server: Started;
  let authorization: string;
  const get = (path: string, headers: Record<string, string> = { authorization }) => fetch(`${server.url}${path}`, { headers });

  beforeAll(async () => {
    server = await start(['emulate', '--port', '0']);
    const login = await fetch(`${server.url}/api/v1/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'paradrop', password: '' }),
    });
    const body = (await login.json()) as { token: string };
    expect(validatorOf(answerSchema('/api/v1/auth/local', 'post'))(body), 'the login answers as described').toBe(true);
    authorization = `Bearer ${body.token}`;
  });

  it('answers the document the build wrote, without credentials too: a client generator fetches it as it is', async () => {
    for (const headers of [{ authorization }, {}] as Record<string, string>[]) {
      const res = await get('/api/v1/openapi.json', headers);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual(document);
    }
    // The rest of /api/v1 still needs them.
    const anonymous = await get('/api/v1/info/features', {});
    expect(anonymous.status).toBe(401);
    expect(validatorOf(answerSchema('/api/v1/info/features', 'get', '401'))(await anonymous.json())).toBe(true);
  });

  it('takes what GET /api/v1/chutes and /api/v1/info/hardware answer, and refuses a wrong shape', async () => {
    const chutes = validatorOf(answerSchema('/api/v1/chutes', 'get'));
    const list = (await (await get('/api/v1/chutes')).json()) as Record<string, unknown>[];
    expect(list.length).toBeGreaterThan(0);
    expect(chutes(list) ? [] : chutes.errors).toEqual([]);
    expect(chutes([{ ...list[0], state: 'flying' }])).toBe(false);
    expect(chutes([without(list[0]!, 'environment')])).toBe(false);
    expect(chutes(list[0])).toBe(false);

    const hardware = validatorOf(answerSchema('/api/v1/info/hardware', 'get'));
    const answer = (await (await get('/api/v1/info/hardware')).json()) as Record<string, unknown>;
    expect(hardware(answer) ? [] : hardware.errors).toEqual([]);
    for (const field of Object.keys(answer)) expect(hardware(without(answer, field)), `without ${field}`).toBe(false);
    expect(hardware({ ...answer, unknown: 1 })).toBe(false);
  });

  it('takes every event the emulator streams as the described event of the stream, and refuses a wrong shape', async () => {
    const media = document.paths['/api/v1/events']!.get!.responses['200']!.content!['text/event-stream']!;
    const event = validatorOf(media.schema);
    const stream = await openEvents(server.url, '?lastEventId=999', { authorization });
    if (!('events' in stream)) throw new Error(`GET /api/v1/events answered ${stream.status}`);
    const change = (await (await fetch(`${server.url}/api/v1/chutes/hotspot/restart`, { method: 'POST', headers: { authorization } })).json()) as {
      change_id: number;
    };
    const stations = (await (await get('/api/v1/chutes/hotspot/networks/guest/stations')).json()) as { mac_addr: string }[];
    await fetch(`${server.url}/api/v1/chutes/hotspot/networks/guest/stations/${stations[0]!.mac_addr}`, { method: 'DELETE', headers: { authorization } });
    await stream.next((candidate) => candidate.event === 'change.ended' && (candidate.data.change as { id: number }).id === change.change_id);
    await stream.next((candidate) => candidate.event === 'station.disconnected');
    stream.close();
    expect(new Set(stream.events.map((streamed) => streamed.event))).toEqual(
      new Set(['events.missed', 'change.queued', 'change.progressed', 'chute.state', 'change.ended', 'station.disconnected']),
    );
    for (const streamed of stream.events) expect(event(streamed.data) ? [] : event.errors, streamed.event).toEqual([]);
    expect(event({ ...stream.events.at(-1)!.data, mac: 'not a mac' })).toBe(false);
    expect(event({ ...stream.events.at(-1)!.data, kind: 'station.exploded' })).toBe(false);
  });

  it('takes a problem the emulator answers as the described problem', async () => {
    const res = await get('/api/v1/chutes/no-such-chute');
    expect(res.status).toBe(404);
    const problem = validatorOf(answerSchema('/api/v1/chutes/{chute}', 'get', '404'));
    const body = (await res.json()) as Record<string, unknown>;
    expect(problem(body) ? [] : problem.errors).toEqual([]);
    expect(problem({ ...body, status: '404' })).toBe(false);
  });
});
