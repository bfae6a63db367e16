import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { defineRoute } from '../route.ts';
import { IF_NONE_MATCH } from './conditional.ts';
import { openApiDocument } from './document.ts';
import type { DescribedOperation } from './types.ts';

const ThingSchema = z.strictObject({ name: z.string(), size: z.int() });
const ThingListSchema = z.array(ThingSchema);
const ThingParamSchema = z.string().check(z.regex(/^[a-z]+$/));
const UnusedSchema = z.object({ never: z.boolean() });
/** Named as an area's schemas.ts names them: `<Name>Schema`. */
const schemas = { ThingSchema, ThingListSchema, UnusedSchema, NOT_A_SCHEMA: 1 };

const list: DescribedOperation = {
  name: 'things-things-get',
  route: defineRoute('GET /api/v1/things', 'The things'),
  request: z.object({ params: z.object({}), body: z.undefined() }),
  response: ThingListSchema,
};
const one: DescribedOperation = {
  name: 'things-thing-get',
  route: defineRoute('GET /api/v1/things/:thing', 'One thing, as JSON or YAML', { aliases: ['/api/v1/thing/:thing'], answer: 'document' }),
  request: z.object({ params: z.object({ thing: ThingParamSchema }), body: z.undefined() }),
  response: ThingSchema,
};
const replace: DescribedOperation = {
  name: 'things-thing-put',
  route: defineRoute('PUT /api/v1/things/:thing', 'Replace a thing, from JSON, YAML or a tar', { body: 'document', upload: ['application/x-tar'] }),
  request: z.object({ params: z.object({ thing: ThingParamSchema }), body: z.object({ size: z.int() }) }),
  response: ThingSchema,
};
const poke: DescribedOperation = {
  name: 'things-poke-post',
  route: defineRoute('POST /api/v1/things/poke', 'Poke, optionally with a note'),
  request: z.object({ body: z.optional(z.object({ note: z.string() })) }),
  response: z.strictObject({ poked: z.boolean() }),
};
const login: DescribedOperation = {
  name: 'auth-login-post',
  route: defineRoute('POST /api/v1/login', 'Log in', { public: true }),
  request: z.object({ body: z.object({ password: z.string() }) }),
  response: z.object({ token: z.string() }),
  answers: { 401: { description: 'Wrong password', schema: z.object({ success: z.literal(false) }) } },
  problems: [400],
};
const socket: DescribedOperation = {
  name: 'things-thing-ws',
  route: defineRoute('GET /ws/things/:thing', 'A websocket of a thing'),
  request: z.object({ params: z.object({ thing: ThingParamSchema }) }),
  websocket: true,
  problems: [400, 404, 426],
};

const document = openApiDocument({
  info: { title: 'things', version: '1.0.0' },
  operations: [list, one, replace, poke, login, socket],
  schemaModules: [schemas],
  securitySchemes: { basic: { type: 'http', scheme: 'basic' } },
  examples: new Map([['things-things-get', [{ name: 'a', size: 1 }]]]),
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problem = (name: string) => ({ $ref: `#/components/responses/${name}` });

describe('openApiDocument', () => {
  it('writes an OpenAPI 3.1 document: a path per route path, operations named and tagged after their module', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(Object.keys(document.paths)).toEqual([
      '/api/v1/login',
      '/api/v1/thing/{thing}',
      '/api/v1/things',
      '/api/v1/things/poke',
      '/api/v1/things/{thing}',
      '/ws/things/{thing}',
    ]);
    expect(Object.keys(document.paths['/api/v1/things/{thing}']!)).toEqual(['get', 'put']);
    expect(document.paths['/api/v1/things']!.get).toMatchObject({ operationId: 'things-things-get', tags: ['things'], summary: 'The things' });
    expect(document.tags).toEqual([{ name: 'auth' }, { name: 'things' }]);
  });

  it('names the schemas as their modules do, the others after their operation, and keeps only those it uses', () => {
    expect(document.paths['/api/v1/things']!.get!.responses).toMatchObject({
      200: { content: { 'application/json': { schema: ref('ThingList'), example: [{ name: 'a', size: 1 }] } } },
    });
    expect(document.components.schemas.ThingList).toEqual({ type: 'array', items: ref('Thing') });
    expect(document.components.schemas.Thing).toMatchObject({ type: 'object', required: ['name', 'size'], additionalProperties: false });
    expect(Object.keys(document.components.schemas).sort()).toEqual(
      [
        'AuthLoginPostAnswer',
        'AuthLoginPostAnswer401',
        'AuthLoginPostBody',
        'InputError',
        'Problem',
        'Thing',
        'ThingList',
        'ThingsPokePostAnswer',
        'ThingsPokePostBody',
        'ThingsThingPutBody',
      ].sort(),
    );
  });

  it("describes a GET's ETag: the If-None-Match parameter, the ETag of its 200, its 304; and none on a PUT", () => {
    const get = document.paths['/api/v1/things/{thing}']!.get!;
    const answers = get.responses as Record<string, { headers?: Record<string, unknown> }>;
    expect(get.parameters).toContainEqual(expect.objectContaining({ name: 'If-None-Match', in: 'header', required: false }));
    expect(Object.keys(answers['200']!.headers!)).toEqual(['ETag']);
    expect(answers['304']).toEqual({ $ref: '#/components/responses/NotModified' });
    expect(document.components.responses.NotModified).toMatchObject({ headers: { ETag: { schema: { type: 'string' } } } });
    expect(document.components.responses.NotModified).not.toHaveProperty('content');
    const put = document.paths['/api/v1/things/{thing}']!.put!;
    expect(put.responses).not.toHaveProperty('304');
    expect((put.parameters as { name: string }[]).map((p) => p.name)).not.toContain('If-None-Match');
  });

  it('gives path parameters their schema, and answers 400 and 404 for them', () => {
    const get = document.paths['/api/v1/things/{thing}']!.get!;
    expect(get.parameters).toEqual([{ name: 'thing', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z]+$' } }, IF_NONE_MATCH]);
    expect(Object.keys(get.responses as object)).toEqual(['200', '304', '400', '401', '403', '404', '429', '500', 'default']);
    expect(get.responses).toMatchObject({ 400: problem('BadRequest'), 404: problem('NotFound'), default: problem('Problem') });
  });

  it('gives the query parameters of the request schema their schema, required or not, and answers 400 and 422 for them', () => {
    const search: DescribedOperation = {
      name: 'things-search-get',
      route: defineRoute('GET /api/v1/search', 'Things by name, a page at a time'),
      request: z.object({
        params: z.object({}),
        query: z.object({
          name: z.string(),
          page: z.optional(
            z.pipe(
              ThingParamSchema,
              z.transform((text) => text.length),
            ),
          ),
        }),
        body: z.undefined(),
      }),
      response: ThingListSchema,
    };
    const get = openApiDocument({ info: { title: 'things', version: '1.0.0' }, operations: [search] }).paths['/api/v1/search']!.get!;
    expect(get.parameters).toEqual([
      { name: 'name', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'page', in: 'query', required: false, schema: { type: 'string', pattern: '^[a-z]+$' } },
      IF_NONE_MATCH,
    ]);
    expect(Object.keys(get.responses as object)).toEqual(['200', '304', '400', '422', '500', 'default']);
  });

  it('describes the answer of a route that answers YAML when asked (`answer: document`) in every document media type, and JSON only otherwise', () => {
    const thing = ref('Thing');
    expect((document.paths['/api/v1/things/{thing}']!.get!.responses as Record<string, { content?: object }>)['200']!.content).toEqual({
      'application/json': { schema: thing },
      'application/yaml': { schema: thing },
      'application/x-yaml': { schema: thing },
      'text/yaml': { schema: thing },
    });
    expect(Object.keys((document.paths['/api/v1/things/{thing}']!.put!.responses as Record<string, { content: object }>)['200']!.content)).toEqual([
      'application/json',
    ]);
  });

  it("describes a body as JSON, as JSON and YAML for a document route, and a route's uploads as raw bytes", () => {
    expect(document.paths['/api/v1/things/{thing}']!.put!.requestBody).toEqual({
      required: true,
      content: {
        'application/json': { schema: ref('ThingsThingPutBody') },
        'application/yaml': { schema: ref('ThingsThingPutBody') },
        'application/x-yaml': { schema: ref('ThingsThingPutBody') },
        'text/yaml': { schema: ref('ThingsThingPutBody') },
        'application/x-tar': {},
      },
    });
    expect(Object.keys(document.paths['/api/v1/things/{thing}']!.put!.responses as object)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '422',
      '429',
      '500',
      'default',
    ]);
    expect(document.paths['/api/v1/things/poke']!.post!.requestBody).toEqual({
      required: false,
      content: { 'application/json': { schema: ref('ThingsPokePostBody') } },
    });
    expect(document.paths['/api/v1/things']!.get!.requestBody).toBeUndefined();
  });

  it('takes the security schemes everywhere but on a public operation, which says its own answers and problems', () => {
    expect(document.security).toEqual([{ basic: [] }]);
    expect(document.components.securitySchemes).toEqual({ basic: { type: 'http', scheme: 'basic' } });
    const post = document.paths['/api/v1/login']!.post!;
    expect(post.security).toEqual([]);
    expect(Object.keys(post.responses as object)).toEqual(['200', '400', '401', '500', 'default']);
    expect(post.responses).toMatchObject({
      401: { description: 'Wrong password', content: { 'application/json': { schema: ref('AuthLoginPostAnswer401') } } },
    });
  });

  it('answers a websocket 101 to an upgrade request', () => {
    const get = document.paths['/ws/things/{thing}']!.get!;
    expect(get.parameters).toContainEqual({ name: 'Upgrade', in: 'header', required: true, schema: { type: 'string', enum: ['websocket'] } });
    expect(Object.keys(get.responses as object)).toEqual(['101', '400', '401', '403', '404', '426', '429', '500', 'default']);
  });

  it('describes a stream of Server-Sent Events: a text/event-stream 200 whose events its schema names, the headers it reads, a 503 with Retry-After', () => {
    const ThingEventSchema = z.strictObject({ kind: z.literal('thing.changed'), id: z.int() });
    const lastEventId = { description: 'The id of the last event received', schema: { type: 'string', pattern: '^[0-9]+$' } };
    const stream: DescribedOperation = {
      name: 'things-events-get',
      route: defineRoute('GET /api/v1/things/events', 'The things as they change'),
      request: z.object({ params: z.object({}), query: z.object({ thing: z.optional(ThingParamSchema) }), body: z.undefined() }),
      events: ThingEventSchema,
      headers: { 'Last-Event-ID': lastEventId },
      problems: [400, 503],
    };
    const streamed = openApiDocument({ info: { title: 'things', version: '1.0.0' }, operations: [stream], schemaModules: [{ ThingEventSchema }] });
    const get = streamed.paths['/api/v1/things/events']!.get!;
    expect(get.parameters).toEqual([
      { name: 'thing', in: 'query', required: false, schema: { type: 'string', pattern: '^[a-z]+$' } },
      { name: 'Last-Event-ID', in: 'header', required: false, ...lastEventId },
    ]);
    expect(get.responses).toMatchObject({ 200: { description: 'The things as they change', content: { 'text/event-stream': { schema: ref('ThingEvent') } } } });
    expect(Object.keys(get.responses as object)).toEqual(['200', '400', '500', '503', 'default']);
    expect(streamed.components.schemas.ThingEvent).toMatchObject({ properties: { kind: { const: 'thing.changed' } } });
    expect(streamed.components.responses.ServiceUnavailable).toMatchObject({ headers: { 'Retry-After': { schema: { type: 'integer' } } } });
  });

  it("describes an alias as the route's operation, under an operationId of its own", () => {
    const alias = document.paths['/api/v1/thing/{thing}']!.get!;
    expect(alias).toMatchObject({
      operationId: 'things-thing-get-alias-1',
      summary: 'One thing, as JSON or YAML',
      description: 'Another path of GET /api/v1/things/{thing}.',
    });
    expect(alias.responses).toEqual(document.paths['/api/v1/things/{thing}']!.get!.responses);
  });

  it('describes every problem with the one Problem schema, as application/problem+json', () => {
    expect(document.components.responses.NotFound).toEqual({
      description: expect.any(String),
      content: { 'application/problem+json': { schema: ref('Problem') } },
    });
    expect(document.components.schemas.Problem).toMatchObject({
      required: ['type', 'title', 'status', 'detail'],
      properties: { errors: { items: ref('InputError') } },
    });
  });

  it('refuses two operations on the same method and path', () => {
    expect(() => openApiDocument({ info: { title: 't', version: '1' }, operations: [list, { ...list, name: 'things-other-get' }] })).toThrow(
      'things-other-get and things-things-get both answer GET /api/v1/things',
    );
  });

  it('goes without security when none is given', () => {
    const open = openApiDocument({ info: { title: 't', version: '1' }, operations: [list] });
    expect(open.security).toBeUndefined();
    expect(Object.keys(open.paths['/api/v1/things']!.get!.responses as object)).toEqual(['200', '304', '500', 'default']);
  });
});
