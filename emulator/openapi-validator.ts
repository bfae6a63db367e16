// `chutebox emulate --validate`: every request to the API checked against the OpenAPI document the
// build made, before the handlers see it, and every answer after. A bundle of its own
// (dist/validator.mjs, with ajv), loaded only when validation is on; the validators are compiled on
// the first request that needs each. See docs/decisions/0033-emulate-validate.md.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Hono } from 'hono';
import { mediaType } from '../functions/core/body/decode.ts';
import { documentKind, parseJson, parseYaml } from '../functions/core/body/index.ts';
import { inputPath, isHttpProblem, problem, PROBLEM_CONTENT_TYPE, toProblem, type InputError } from '../functions/core/problem.ts';
import { corsPolicy } from '../runtime/http/cors.ts';
import { choosingBranches } from './openapi-branches.ts';

/** What `--validate` does with a request outside the document: `refuse` answers it (400, 404, 405, 415); `log` only logs it. */
export type ValidationMode = 'refuse' | 'log';

/** What the validator needs of the emulated router. */
export interface ValidatorOptions {
  /** Folder of the function bundles: the document is `openapi.json` beside it, or the answer of its `meta-openapi-get.mjs`. */
  functionsDir: string;
  mode: ValidationMode;
  /** The API's credentials check (`AuthPolicy.authorize`); null when authentication is off. */
  authorize: ((authorization: string | undefined, client: string | undefined) => Promise<unknown>) | null;
  /** As `createApp`'s `corsOrigin`: the validator's own answers carry the same CORS headers. */
  corsOrigin?: string | undefined;
  /** Where each line about a request or an answer that breaks the document goes; default stderr (`console.error`). */
  log?: (line: string) => void;
}

/** An app's `fetch`, as @hono/node-server, the websockets and msw call it. */
export type Fetch = Hono['fetch'];

/** The beginning of every line the validator logs; test/support/spawn.ts reads them. */
export const LOG_PREFIX = 'openapi:';

/** How a `$ref` to a schema of the document begins. */
const SCHEMA_REF = '#/components/schemas/';

/** Requests under this prefix are checked, besides those on a path of the document (the change stream). */
const API_PREFIX = '/api/v1';

/** The largest body the validator reads to check; a larger one goes to the handlers unread, which answer 413 (the API's body limit). */
const MAX_CHECKED_BODY = 1024 * 1024;

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: unknown;
}
interface MediaObject {
  schema?: unknown;
}
interface Answer {
  $ref?: string;
  content?: Record<string, MediaObject>;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaObject> };
  responses: Record<string, Answer>;
  security?: unknown[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, unknown>; responses?: Record<string, Answer> };
  security?: unknown[];
}

/** A path of the document, ready to match: its segments, `null` for a parameter, and the parameters' names. */
interface DocumentPath {
  template: string;
  segments: (string | null)[];
  names: string[];
  /** How many segments are literal: `/api/v1/config/hostconfig` wins over `/api/v1/config/{name}`. */
  literal: number;
  methods: Record<string, Operation>;
}

/** Where a request stands against the document. */
type Verdict =
  | { kind: 'outside-scope' }
  | { kind: 'unknown'; status: 404 | 405; errors: InputError[]; allow?: string }
  | { kind: 'operation'; operation: Operation; errors: InputError[]; status: number; body?: ArrayBuffer };

/** A rule a request breaks, and the status the API answers it with (docs/api/README.md#errors). */
interface Broken {
  status: number;
  error: InputError;
}

/**
 * Which status a request that breaks several rules gets, as the API checks them: what cannot be read
 * (a path or query parameter, the body's JSON or YAML) first, then a missing `Upgrade`, the media
 * type, and the rules of what was read.
 */
const PRECEDENCE = [400, 426, 415, 422];

/**
 * The emulated router's `fetch` wrapped by the OpenAPI validator: requests below `/api/v1` (and on any
 * path of the document) are checked against the document: path and method, path parameters, required
 * headers, the request body's media type and, for JSON and YAML, its content. One outside the
 * document is answered (`refuse`) with the status the API gives it, and `errors` naming the rule and
 * the field as the API names it: 404 or 405 for a path or method the document has not; 400 for a
 * malformed path or query parameter or a body that is not JSON or YAML; 426 without `Upgrade` on a
 * websocket path; 415 for a media type the operation does not take; 422 for a body the schema refuses
 * (of a union, the rules of the branch the body chose: `choosingBranches`). Only the rules of the
 * status that wins are listed (`PRECEDENCE`), as the API stops at the first check that fails. The
 * credentials are checked first, as the API checks them (a request without them stays a 401); `log`
 * hands the request to the handlers all the same. Each answer is checked against the operation's
 * answer for its status and media type; one that breaks it is logged and served unchanged. Every
 * request or answer outside the document is one line of `options.log`:
 * `openapi: request PUT /api/v1/chutes/a/networks/b/ssid 422 refused: body.ssid must be string`.
 * Websocket upgrades, preflights and every other path (`/_chutebox/*`, `/docs`, the portal at `/`) pass untouched.
 *
 * @throws Error when there is no document: neither `openapi.json` beside `options.functionsDir` nor a
 *   `meta-openapi-get.mjs` in it answers one (build chutebox first).
 * @example
 * app.fetch = await validatingFetch(app.fetch, { functionsDir, mode: 'refuse', authorize: null });
 */
export async function validatingFetch(fetch: Fetch, options: ValidatorOptions): Promise<Fetch> {
  const document = await readDocument(options.functionsDir);
  const check = documentChecks(document);
  const cors = corsPolicy(options.corsOrigin);
  const log = options.log ?? ((line: string) => console.error(line));

  return async (request, env, executionCtx) => {
    const url = new URL(request.url);
    if (request.method === 'OPTIONS' || request.headers.get('upgrade') !== null) return fetch(request, env, executionCtx);
    const verdict = await check.request(request, url.pathname);
    if (verdict.kind === 'outside-scope') return fetch(request, env, executionCtx);
    const where = `${request.method} ${url.pathname}`;
    const errors = verdict.errors;
    if (errors.length > 0 && options.mode === 'refuse') {
      const refusal = (await credentialsRefusal(verdict, request, env, options.authorize, document)) ?? refuse(verdict);
      const answer = problemResponse(refusal.status, refusal.body, { ...refusal.headers, ...cors.headers(request.headers.get('origin') ?? undefined) });
      log(`${LOG_PREFIX} request ${where} ${refusal.status} refused: ${rules(errors)}`);
      return answer;
    }
    const forwarded =
      verdict.kind === 'operation' && verdict.body !== undefined
        ? new Request(request.url, { method: request.method, headers: request.headers, body: verdict.body })
        : request;
    const response = await fetch(forwarded, env, executionCtx);
    if (errors.length > 0) log(`${LOG_PREFIX} request ${where} ${response.status} served: ${rules(errors)}`);
    if (verdict.kind === 'operation') {
      const broken = await check.answer(verdict.operation, response, request.method === 'HEAD');
      if (broken.length > 0) log(`${LOG_PREFIX} answer ${where} ${response.status}: ${rules(broken)}`);
    }
    return response;
  };
}

/** The rules a request or an answer broke, on one line: `body.ssid must be string; params.mac must match …`. */
function rules(errors: readonly InputError[]): string {
  return errors.map((error) => `${error.path === '' ? '' : `${error.path} `}${error.message}`.replace(/\s+/g, ' ')).join('; ');
}

/**
 * The API's own answer when a request outside the document also lacks credentials the operation
 * needs: auth comes first, as in the handlers. Checked only then, so that the API's check (and its
 * count of failures) runs once per request.
 */
async function credentialsRefusal(
  verdict: Verdict,
  request: Request,
  env: unknown,
  authorize: ValidatorOptions['authorize'],
  document: Document,
): Promise<{ status: number; body: Json; headers: Record<string, string> } | undefined> {
  if (authorize === null || verdict.kind !== 'operation') return undefined;
  if ((verdict.operation.security ?? document.security ?? []).length === 0) return undefined;
  try {
    await authorize(request.headers.get('authorization') ?? undefined, clientOf(env));
    return undefined;
  } catch (error) {
    if (!isHttpProblem(error)) throw error;
    const { problem: body, headers } = toProblem(error);
    return { status: body.status, body, headers };
  }
}

/** The peer address of a request served by @hono/node-server (its `env.incoming`); undefined otherwise (msw, `app.request`). */
function clientOf(env: unknown): string | undefined {
  return (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
}

/** The validator's answer to a request outside the document. */
function refuse(verdict: Exclude<Verdict, { kind: 'outside-scope' }>): { status: number; body: Json; headers: Record<string, string> } {
  const { status, errors } = verdict;
  const operation = verdict.kind === 'operation' ? verdict.operation.operationId : undefined;
  const detail = `the request is outside the API's OpenAPI document (GET /api/v1/openapi.json)${operation === undefined ? '' : ` for ${operation}`}: ${rules(errors.slice(0, 1))}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
  const extensions = operation === undefined ? {} : { operation };
  const headers = verdict.kind === 'unknown' && verdict.allow !== undefined ? { allow: verdict.allow } : status === 426 ? { upgrade: 'websocket' } : {};
  return { status, body: problem(status, detail, errors, extensions), headers: headers as Record<string, string> };
}

function problemResponse(status: number, body: Json, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...headers, 'content-type': PROBLEM_CONTENT_TYPE } });
}

/**
 * The document the build made: `openapi.json` beside the functions folder (dist/openapi.json beside
 * dist/functions/), else what the folder's `meta-openapi-get.mjs` answers (the document inlined).
 */
async function readDocument(functionsDir: string): Promise<Document> {
  const file = path.join(path.dirname(path.resolve(functionsDir)), 'openapi.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Document;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new Error(`--validate: cannot read the OpenAPI document ${file}: ${(error as Error).message}`);
  }
  const bundle = path.join(functionsDir, 'meta-openapi-get.mjs');
  try {
    const { invoke } = (await import(pathToFileURL(bundle).href)) as { invoke: (input: unknown, device: unknown) => Promise<{ status: number; body: string }> };
    const out = await invoke({ params: {}, query: {}, headers: {}, body: undefined, text: '' }, {});
    if (out.status === 200) return JSON.parse(out.body) as Document;
  } catch {
    // No such bundle: said below.
  }
  throw new Error(`--validate needs the OpenAPI document the build writes: neither ${file} nor ${bundle} gives one (npm run build)`);
}

/** The checks of one document: requests and answers, each schema compiled on first use and kept. */
function documentChecks(document: Document) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  // Each union a body chooses a branch of as a chain that reports the chosen branch's errors alone.
  const schemas = document.components.schemas ?? {};
  const resolve = (ref: string) => (ref.startsWith(SCHEMA_REF) ? schemas[ref.slice(SCHEMA_REF.length)] : undefined);
  const branching = (schema: unknown) => JSON.stringify(choosingBranches(schema, resolve));
  // The components as `$defs` of one schema, so that every `$ref` of the document resolves there.
  ajv.addSchema({ $id: 'openapi', $defs: JSON.parse(branching(schemas).replaceAll(`"${SCHEMA_REF}`, '"#/$defs/')) });
  const compiled = new Map<unknown, ValidateFunction>();
  const validator = (schema: unknown): ValidateFunction => {
    let validate = compiled.get(schema);
    if (validate === undefined) {
      validate = ajv.compile(JSON.parse(branching(schema).replaceAll(`"${SCHEMA_REF}`, '"openapi#/$defs/')) as object);
      compiled.set(schema, validate);
    }
    return validate;
  };
  const check = (schema: unknown, value: unknown, at: string): InputError[] => {
    const validate = validator(schema);
    return validate(value) ? [] : inputErrors(validate.errors ?? [], at);
  };

  const paths: DocumentPath[] = Object.entries(document.paths).map(([template, methods]) => {
    const segments = template
      .split('/')
      .filter((s) => s !== '')
      .map((s) => (/^\{.+\}$/.test(s) ? null : s));
    const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    return { template, segments, names, literal: segments.filter((s) => s !== null).length, methods };
  });
  paths.sort((a, b) => b.literal - a.literal);

  /** The paths of the document that `pathname` matches, most literal first, with its parameters (decoded; null: not decodable). */
  const matching = (pathname: string) => {
    const got = pathname.split('/').filter((s) => s !== '');
    const found: { path: DocumentPath; params: Record<string, string | null> }[] = [];
    for (const candidate of paths) {
      if (candidate.segments.length !== got.length) continue;
      const params: Record<string, string | null> = {};
      let names = 0;
      const matches = candidate.segments.every((segment, i) => {
        if (segment !== null) return segment === got[i];
        params[candidate.names[names++]!] = decoded(got[i]!);
        return true;
      });
      if (matches) found.push({ path: candidate, params });
    }
    return found;
  };

  return {
    async request(request: Request, pathname: string): Promise<Verdict> {
      const found = matching(pathname);
      const inScope = pathname === API_PREFIX || pathname.startsWith(`${API_PREFIX}/`) || found.length > 0;
      if (!inScope) return { kind: 'outside-scope' };
      if (found.length === 0) return { kind: 'unknown', status: 404, errors: [{ path: 'path', message: `matches no path of the document: ${pathname}` }] };
      const method = (request.method === 'HEAD' ? 'GET' : request.method).toLowerCase();
      const match = found.find((candidate) => candidate.path.methods[method] !== undefined);
      if (match === undefined) {
        const allow = [...new Set(found.flatMap((candidate) => Object.keys(candidate.path.methods).map((m) => m.toUpperCase())))].join(', ');
        return { kind: 'unknown', status: 405, allow, errors: [{ path: 'method', message: `must be one of ${allow} on ${found[0]!.path.template}` }] };
      }
      const operation = match.path.methods[method]!;
      const broken: Broken[] = [];
      const verdict = (body?: ArrayBuffer): Verdict => ({ kind: 'operation', operation, ...decided(broken), ...(body === undefined ? {} : { body }) });
      for (const parameter of operation.parameters ?? []) {
        const at =
          parameter.in === 'path' ? `params.${parameter.name}` : `${parameter.in === 'header' ? 'headers' : parameter.in}.${parameter.name.toLowerCase()}`;
        const value = parameterValue(parameter, request, match.params);
        if (value === null) broken.push({ status: 400, error: { path: at, message: 'is not valid percent-encoding' } });
        else if (value === undefined) {
          if (parameter.required) broken.push({ status: missingStatus(parameter), error: { path: at, message: 'is required' } });
        } else if (parameter.schema !== undefined) broken.push(...check(parameter.schema, value, at).map((error) => ({ status: 400, error })));
      }
      if (operation.requestBody === undefined) return verdict();

      const { required = false, content } = operation.requestBody;
      const headers = request.headers;
      // Over HTTP/1.1 the headers say whether there is a body; a Request made in process (msw, `app.request`) may have one without them.
      const length = headers.get('content-length');
      const carriesBody = length !== null ? length !== '0' : headers.get('transfer-encoding') !== null || request.body !== null;
      if (!carriesBody) {
        if (required) broken.push({ status: 422, error: { path: 'body', message: `is required (${Object.keys(content).join(', ')})` } });
        return verdict();
      }
      const type = mediaType(headers.get('content-type') ?? undefined);
      const media = content[type];
      if (media === undefined) {
        broken.push({
          status: 415,
          error: { path: 'headers.content-type', message: `must be one of ${Object.keys(content).join(', ')}, not ${type || 'none'}` },
        });
        return verdict();
      }
      // Raw bytes (an upload, an empty Media Type Object): the media type is all there is to check.
      if (media.schema === undefined || Number(headers.get('content-length') ?? 0) > MAX_CHECKED_BODY) return verdict();
      const body = await request.arrayBuffer();
      if (body.byteLength > MAX_CHECKED_BODY) return verdict(body);
      const parsed = parsedDocument(type, new TextDecoder().decode(body));
      if ('error' in parsed) broken.push({ status: 400, error: parsed.error });
      else broken.push(...check(media.schema, parsed.value, 'body').map((error) => ({ status: 422, error })));
      return verdict(body);
    },

    /** The rules an answer breaks: its status not described, a media type not described, a body its schema rejects. */
    async answer(operation: Operation, response: Response, head: boolean): Promise<InputError[]> {
      const status = String(response.status);
      let described = operation.responses[status] ?? operation.responses.default;
      if (described?.$ref !== undefined) described = document.components.responses?.[described.$ref.replace('#/components/responses/', '')];
      if (described === undefined) return [{ path: 'status', message: `${status} is not an answer of ${operation.operationId}` }];
      if (head) return [];
      const type = mediaType(response.headers.get('content-type') ?? undefined);
      if (described.content === undefined) {
        const text = await response.clone().text();
        return text === '' ? [] : [{ path: 'body', message: `is not described (${type || 'untyped'}): ${status} has no content` }];
      }
      const media = described.content[type];
      if (media === undefined)
        return [{ path: 'headers.content-type', message: `must be one of ${Object.keys(described.content).join(', ')}, not ${type || 'none'}` }];
      // Raw bytes, or a stream of events or log lines (which may not end): the media type is all there is to check, the body is not read.
      if (media.schema === undefined || documentKind(type) === null) return [];
      const parsed = parsedDocument(type, await response.clone().text());
      return 'error' in parsed ? [parsed.error] : check(media.schema, parsed.value, 'body');
    },
  };
}

/**
 * The status and the rules of a request that breaks `broken`: the first status of `PRECEDENCE` among
 * them, and only its rules, as the API answers the first check that fails.
 */
function decided(broken: readonly Broken[]): { status: number; errors: InputError[] } {
  const status = PRECEDENCE.find((candidate) => broken.some((rule) => rule.status === candidate)) ?? 400;
  return { status, errors: broken.filter((rule) => rule.status === status).map((rule) => rule.error) };
}

/** The status of a missing required parameter: 426 for `Upgrade` (a websocket path), as the API answers; else 422, a required field missing. */
function missingStatus(parameter: Parameter): number {
  return parameter.in === 'header' && parameter.name.toLowerCase() === 'upgrade' ? 426 : 422;
}

/** A body's text as YAML for a YAML media type, else as JSON, read as the API reads it; or the rule it breaks when it does not parse (the API's, naming `body`). */
function parsedDocument(type: string, text: string): { value: unknown } | { error: InputError } {
  try {
    return { value: documentKind(type) === 'yaml' ? parseYaml(text) : parseJson(text) };
  } catch (error) {
    if (!isHttpProblem(error) || error.errors?.[0] === undefined) throw error;
    return { error: error.errors[0] };
  }
}

/** A parameter's value in a request: a string, undefined when absent, null for a path segment that does not decode. */
function parameterValue(parameter: Parameter, request: Request, params: Record<string, string | null>): string | null | undefined {
  if (parameter.in === 'path') return params[parameter.name];
  if (parameter.in === 'header') return request.headers.get(parameter.name) ?? undefined;
  if (parameter.in === 'query') return new URL(request.url).searchParams.get(parameter.name) ?? undefined;
  return undefined;
}

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * ajv's errors as the API names violations (`InputError`): `body.net.wlan.ssid`, `body.dns[0]`; a
 * missing field and a field the schema does not allow are named themselves.
 */
export function inputErrors(errors: readonly ErrorObject[], at: string): InputError[] {
  const seen = new Set<string>();
  const out: InputError[] = [];
  for (const error of errors) {
    const keys = error.instancePath
      .split('/')
      .slice(1)
      .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'))
      .map((key) => (/^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : key));
    let where = inputPath(at, keys);
    let message = error.message ?? 'is not valid';
    // A chain of `choosingBranches` says which branch failed; the branch's own errors say why.
    if (error.keyword === 'if') continue;
    if (error.keyword === 'required') {
      where = inputPath(where, [(error.params as { missingProperty: string }).missingProperty]);
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      where = inputPath(where, [(error.params as { additionalProperty: string }).additionalProperty]);
      message = 'is not a known field';
    } else if (error.keyword === 'enum') {
      message = `must be one of ${((error.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    } else if (error.keyword === 'const') {
      message = `must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`;
    }
    const key = `${where}\n${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path: where, message });
  }
  return out;
}
