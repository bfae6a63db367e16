import * as z from 'zod/mini';
import type { $ZodObject, $ZodType, JSONSchema } from 'zod/v4/core';
import { DOCUMENT_MEDIA_TYPES } from './body-formats.ts';
import { problem, PROBLEM_CONTENT_TYPE } from './problem.ts';
import { InputErrorSchema, ProblemSchema } from './problem-schema.ts';
import { routePaths, type Route } from './route.ts';

/*
 * The OpenAPI 3.1 document of the API, generated from what already describes it: each endpoint
 * module's route, request schema and response schema, and the few operations the HTTP layer answers
 * itself (the login, the websockets: runtime/http/openapi.ts), described once beside them. Nothing
 * here knows an endpoint; the build runs it (esbuild.config.mjs → dist/openapi.json) and
 * `GET /api/v1/openapi.json` answers what it made (functions/meta/openapi.get.ts).
 * See docs/decisions/0029-openapi-from-the-schemas.md.
 */

/** The OpenAPI version the document follows. Its Schema Objects are JSON Schema 2020-12, what zod emits. */
export const OPENAPI_VERSION = '3.1.1';

/** A zod schema (zod/mini or zod). */
type Schema = $ZodType;

/** A JSON object of the document. */
type Json = Record<string, unknown>;

/**
 * One operation to describe: an endpoint module (`route`, `request`, `response`, as it exports them)
 * with its bundle's name, or an operation the HTTP layer answers itself, which may say more.
 */
export interface DescribedOperation {
  /**
   * Its name, unique: the bundle's for an endpoint (`chutes-ssid-put`, docs/layout.md), else one of
   * the same form (`auth-local-post`). It is the operationId; its first segment is the tag.
   */
  name: string;
  route: Route;
  /** `z.object({ params, body })` as the endpoint modules export it: the path parameters and the body, either left out when there is none. */
  request: Schema;
  /** The 200 answer (JSON); none for a websocket. */
  response?: Schema;
  /** Said under the summary. */
  description?: string;
  /** Answered without credentials (the login). */
  public?: boolean;
  /** A websocket: answered `101 Switching Protocols` to an upgrade request. */
  websocket?: boolean;
  /** Answers besides the 200 and the problems, by status: the login's 401 `{ username, success: false }`. */
  answers?: Readonly<Record<number, DescribedAnswer>>;
  /**
   * The problem statuses it answers, the credentials' and 500 aside. Left out, they follow from the
   * request: 400 and 404 for path parameters, 400, 413, 415 and 422 for a body.
   */
  problems?: readonly number[];
}

/** An answer other than the 200 and the problems. */
export interface DescribedAnswer {
  description: string;
  /** Its JSON body. */
  schema: Schema;
  /** Its headers, as OpenAPI Header Objects by name. */
  headers?: Readonly<Record<string, Json>>;
}

/** What the document is made of. */
export interface OpenApiOptions {
  info: { title: string; version: string; description?: string; license?: Json };
  operations: readonly DescribedOperation[];
  /**
   * Modules whose `<Name>Schema` exports (docs/layout.md) name the schemas of the document: each one an
   * operation uses becomes the component `<Name>` (the first name a schema or a name gets wins).
   * Other schemas of an operation are named after it (`ChutesChutesPostBody`, `…Answer`).
   */
  schemaModules?: readonly Readonly<Record<string, unknown>>[];
  /**
   * How a client authenticates (OpenAPI Security Scheme Objects by name). Every operation but a
   * `public` one takes any one of them, and may answer 401, 403 and 429.
   */
  securitySchemes?: Readonly<Record<string, Json>>;
  /** The 200 answer of an operation, by its name: its example in the document. */
  examples?: ReadonlyMap<string, unknown>;
}

/** The document, as the OpenAPI 3.1 Specification names its parts. */
export interface OpenApiDocument {
  openapi: string;
  info: Json;
  tags: { name: string }[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, JSONSchema.BaseSchema>; responses: Record<string, Json>; securitySchemes?: Record<string, Json> };
  security?: Record<string, string[]>[];
}

/**
 * What each problem status says in the document: the statuses an operation may be given (see
 * `DescribedOperation.problems`), each a component response named after its reason phrase
 * (`BadRequest`). Any other status is the `default` answer.
 */
export const PROBLEM_ANSWERS: Readonly<Record<number, { description: string; headers?: Json }>> = {
  400: { description: 'Malformed: the body, a path parameter such as a MAC address, or a field that is missing (`errors` names it)' },
  401: {
    description: 'No credentials, or bad ones',
    headers: { 'WWW-Authenticate': { description: 'The schemes to authenticate with', schema: { type: 'string' } } },
  },
  403: { description: 'The device has no password yet, and the client is not on the device itself' },
  404: { description: 'Nothing by that name: no such chute, network, station, change or user' },
  409: { description: 'A conflict: the network cannot serve the operation, the name is taken, a factory reset is running' },
  413: { description: 'The body is over the limit: 1 MiB, or 512 MiB for an upload' },
  415: { description: 'The body is of a media type the operation does not take (`accepted` lists those it takes)' },
  422: { description: 'The body breaks a rule (`errors` names every violation); nothing was changed' },
  426: {
    description: 'Not a websocket upgrade request',
    headers: { Upgrade: { description: 'The protocol to upgrade to', schema: { type: 'string', enum: ['websocket'] } } },
  },
  429: {
    description: 'Too many failed logins from this address',
    headers: { 'Retry-After': { description: 'Seconds until the address may try again', schema: { type: 'integer' } } },
  },
  500: { description: 'The server failed; its log says why, the answer never does' },
};

/** The `default` answer: any status an operation is not described with. */
const DEFAULT_PROBLEM =
  'Any other error: 409 (a conflict: the network cannot serve the operation, the name is taken, a factory reset is running), ' +
  '502 (a tool, hostapd or the controller refused), 503 or 504 (a tool, a control socket or the container engine is missing or did not answer in time)';

/** The statuses of the credentials, answered by every operation that needs them. */
const CREDENTIAL_PROBLEMS = [401, 403, 429];

const METHOD_ORDER = ['get', 'put', 'post', 'delete'];

/**
 * The OpenAPI 3.1 document of `options.operations`: a path for each route path and alias (`:name`
 * becomes `{name}`), with its path parameters, request body and answers, and the schemas they use as
 * components. A request body is JSON, or JSON and YAML for a `body: 'document'` route, plus the
 * route's `upload` media types as raw bytes; the 200 answer is JSON, with the example
 * `options.examples` gives; every error is `application/problem+json` (`Problem`).
 *
 * @throws Error when two operations answer the same method and path, or a schema cannot be a component.
 * @example
 * const document = openApiDocument({ info: { title: 'chutebox', version: '0.1.0' }, operations: [{ name: 'info-features-get', ...features }] });
 * document.paths['/api/v1/info/features'].get.operationId // 'info-features-get'
 */
export function openApiDocument(options: OpenApiOptions): OpenApiDocument {
  const secured = options.securitySchemes !== undefined && Object.keys(options.securitySchemes).length > 0;
  const names = schemaNames(options);
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of options.operations) {
    routePaths(op.route).forEach((routePath, alias) => {
      const item = (paths[openApiPath(routePath)] ??= {});
      const method = op.route.method.toLowerCase();
      if (item[method] !== undefined) throw new Error(`${op.name} and ${item[method].operationId} both answer ${op.route.method} ${routePath}`);
      const described = operation(op, names, secured, options.examples?.get(op.name));
      item[method] =
        alias === 0
          ? described
          : { ...described, operationId: `${op.name}-alias-${alias}`, description: `Another path of ${op.route.method} ${openApiPath(op.route.path)}.` };
    });
  }
  const sortedPaths = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((key) => [key, Object.fromEntries(Object.entries(paths[key]!).sort(([a], [b]) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b)))]),
  );
  const responses = problemResponses();
  const document: OpenApiDocument = {
    openapi: OPENAPI_VERSION,
    info: options.info,
    tags: [...new Set(options.operations.map(tagOf))].sort().map((name) => ({ name })),
    paths: sortedPaths,
    components: { schemas: {}, responses },
    ...(secured ? { security: Object.keys(options.securitySchemes!).map((scheme) => ({ [scheme]: [] })) } : {}),
  };
  document.components.schemas = usedSchemas(names, document);
  if (secured) document.components.securitySchemes = { ...options.securitySchemes };
  return document;
}

/** One operation of a path. */
function operation(op: DescribedOperation, names: SchemaNames, secured: boolean, example: unknown): Json {
  const shape = objectShape(op.request);
  const params = shape?.params === undefined ? undefined : objectShape(shape.params);
  const parameters: Json[] = pathParameters(op.route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: params?.[name] === undefined ? { type: 'string' } : inlineSchema(params[name]),
  }));
  if (op.websocket) parameters.push({ name: 'Upgrade', in: 'header', required: true, schema: { type: 'string', enum: ['websocket'] } });
  const requestBody = body(op, shape?.body, names);

  const answers: Record<string, Json> = {};
  if (op.websocket) answers['101'] = { description: 'Switching Protocols: the websocket is open' };
  if (op.response !== undefined) {
    const media = { schema: names.ref(op.response), ...(example === undefined ? {} : { example }) };
    const types = op.route.answer === 'document' ? DOCUMENT_MEDIA_TYPES : ['application/json'];
    answers['200'] = { description: op.route.summary, content: Object.fromEntries(types.map((type) => [type, media])) };
  }
  for (const [status, answer] of Object.entries(op.answers ?? {})) {
    answers[status] = {
      description: answer.description,
      ...(answer.headers === undefined ? {} : { headers: answer.headers }),
      content: { 'application/json': { schema: names.ref(answer.schema) } },
    };
  }
  const derived = [...(parameters.some((p) => p.in === 'path') ? [400, 404] : []), ...(requestBody === undefined ? [] : [400, 413, 415, 422])];
  const problems = new Set([...(op.problems ?? derived), ...(secured && !op.public ? CREDENTIAL_PROBLEMS : []), 500]);
  for (const status of [...problems].sort((a, b) => a - b)) {
    if (PROBLEM_ANSWERS[status] === undefined) throw new Error(`${op.name}: no description of the problem status ${status} (PROBLEM_ANSWERS)`);
    answers[String(status)] ??= { $ref: `#/components/responses/${problemName(status)}` };
  }
  answers.default = { $ref: '#/components/responses/Problem' };

  return {
    operationId: op.name,
    tags: [tagOf(op)],
    summary: op.route.summary,
    ...(op.description === undefined ? {} : { description: op.description }),
    ...(op.public && secured ? { security: [] } : {}),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(requestBody === undefined ? {} : { requestBody }),
    responses: answers,
  };
}

/** The request body of an operation: its `body` schema in JSON (and YAML for a document route), then its upload media types; none without either. */
function body(op: DescribedOperation, schema: Schema | undefined, names: SchemaNames): Json | undefined {
  const content: Record<string, Json> = {};
  const described = schema !== undefined && schema._zod.def.type !== 'undefined';
  if (described) {
    const types = op.route.body === 'document' ? DOCUMENT_MEDIA_TYPES : ['application/json'];
    for (const type of types) content[type] = { schema: names.ref(schema) };
  }
  // Raw bytes of any content: OpenAPI 3.1 describes them with an empty Media Type Object.
  for (const type of op.route.upload ?? []) content[type] = {};
  if (Object.keys(content).length === 0) return undefined;
  const optional = described && schema._zod.optin === 'optional' && (op.route.upload ?? []).length === 0;
  return { required: !optional, content };
}

/** The component response of every problem status, `Problem` for the `default` answer. */
function problemResponses(): Record<string, Json> {
  const content = { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } };
  const responses: Record<string, Json> = {};
  for (const [status, { description, headers }] of Object.entries(PROBLEM_ANSWERS)) {
    responses[problemName(Number(status))] = { description, ...(headers === undefined ? {} : { headers }), content };
  }
  responses.Problem = { description: DEFAULT_PROBLEM, content };
  return responses;
}

/** `BadRequest` for 400: the reason phrase without spaces. */
function problemName(status: number): string {
  return problem(status, '').title.replace(/[^A-Za-z]/g, '');
}

/** The tag of an operation: the first segment of its name, the area of an endpoint (`chutes`). */
function tagOf(op: DescribedOperation): string {
  return op.name.split('-')[0]!;
}

/** `/api/v1/chutes/:chute` → `/api/v1/chutes/{chute}`. */
function openApiPath(routePath: string): string {
  return routePath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The parameter names of a route path, in order: `/api/v1/chutes/:chute/networks/:network` → `['chute', 'network']`. */
export function pathParameters(routePath: string): string[] {
  return [...routePath.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
}

/** The shape of a `z.object`, or undefined for any other schema. */
function objectShape(schema: Schema): Readonly<Record<string, Schema>> | undefined {
  return schema._zod.def.type === 'object' ? (schema as $ZodObject)._zod.def.shape : undefined;
}

/** Whether a value is a zod schema. */
function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** A schema in place (a path parameter's), as a request is checked against it. */
function inlineSchema(schema: Schema): JSONSchema.BaseSchema {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', metadata: z.registry() });
  return json;
}

/** The component name of each schema the document refers to, and a `$ref` to it. */
interface SchemaNames {
  ref(schema: Schema): { $ref: string };
  /** Every named schema as JSON Schema, each referring to the others by `$ref`. */
  convert(): Record<string, JSONSchema.BaseSchema>;
}

/**
 * The names of the schemas: the `<Name>Schema` exports of `options.schemaModules`, the problem's, then
 * one after its operation for each other schema an operation uses (a body, an answer). Schemas are
 * converted as a request is checked against them (zod's `input`): what a schema accepts, the
 * document accepts.
 */
function schemaNames(options: OpenApiOptions): SchemaNames {
  const registry = z.registry<{ id: string }>();
  const ids = new Map<Schema, string>();
  const taken = new Set<string>();
  const name = (schema: Schema, id: string) => {
    if (ids.has(schema) || taken.has(id)) return;
    ids.set(schema, id);
    taken.add(id);
    registry.add(schema, { id });
  };
  name(ProblemSchema, 'Problem');
  name(InputErrorSchema, 'InputError');
  for (const module of options.schemaModules ?? []) {
    for (const [key, value] of Object.entries(module)) if (key.endsWith('Schema') && key !== 'Schema' && isSchema(value)) name(value, key.slice(0, -6));
  }
  for (const op of options.operations) {
    const stem = op.name.replace(/(^|-)([a-z0-9])/g, (_, _dash, letter: string) => letter.toUpperCase());
    const requestBody = objectShape(op.request)?.body;
    if (requestBody !== undefined && requestBody._zod.def.type !== 'undefined') name(requestBody, `${stem}Body`);
    if (op.response !== undefined) name(op.response, `${stem}Answer`);
    for (const [status, answer] of Object.entries(op.answers ?? {})) name(answer.schema, `${stem}Answer${status}`);
  }
  return {
    ref: (schema) => {
      const id = ids.get(schema);
      if (id === undefined) throw new Error('a schema of the document has no name');
      return { $ref: `#/components/schemas/${id}` };
    },
    convert: () => {
      const { schemas } = z.toJSONSchema(registry, { io: 'input', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
      return Object.fromEntries(
        Object.entries(schemas).map(([id, schema]) => {
          const { $schema: _, $id: __, ...json } = schema;
          if (json.$defs !== undefined) throw new Error(`the schema ${id} has $defs, which a component cannot keep: name the schemas it shares`);
          return [id, json];
        }),
      );
    },
  };
}

/** The named schemas that the paths and the component responses refer to, directly or through each other. */
function usedSchemas(names: SchemaNames, document: OpenApiDocument): Record<string, JSONSchema.BaseSchema> {
  const all = names.convert();
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      const id = key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/') ? child.slice(21) : undefined;
      if (id !== undefined && !used.has(id)) {
        used.add(id);
        visit(all[id]);
      } else visit(child);
    }
  };
  visit(document.paths);
  visit(document.components.responses);
  return Object.fromEntries(Object.keys(all).flatMap((id) => (used.has(id) ? [[id, all[id]!]] : [])));
}
