import { expect, vi } from 'vitest';
import { decodeBody, isUpload, mediaType } from '../../functions/core/body/decode.ts';
import { decodeDocumentBody, DOCUMENT_MEDIA_TYPES, parseYaml } from '../../functions/core/body/index.ts';
import type { Device } from '../../functions/core/device/index.ts';
import { runHandler, problemOutput, type FunctionInput, type FunctionOutput, type Handler } from '../../functions/core/handler.ts';
import { type InputError, PROBLEM_CONTENT_TYPE, type Problem } from '../../functions/core/problem.ts';
import type { Route } from '../../functions/core/route.ts';

/*
 * The one way a test invokes a function (an endpoint module of functions/<area>/) in process: as a
 * transport does, with the module's request and response schemas checked on every call.
 * `callFunction` sends a JSON body and answers status and body; `callFunctionRaw` sends any body
 * (YAML, text, an upload's bytes) and headers, and answers the response headers and text too.
 */

/**
 * An answer: its status and decoded body. `callFunctionRaw` adds the response headers and the raw
 * text (`RawAnswer`); the HTTP client (`http-client.ts`) adds what only a wire shows (`HttpAnswer`).
 */
export interface Answer<T = unknown> {
  status: number;
  body: T;
}

/** The problem document of a request refused for what it holds (a 400 or 422): it lists each violation. */
export type InputProblem = Problem & { errors: InputError[] };

/** An `Answer` with what a transport sends besides: the response headers (lower-case names) and the body as text. */
export interface RawAnswer<T = unknown> extends Answer<T> {
  headers: Record<string, string>;
  text: string;
}

/** What an endpoint module exports that `callFunction` uses: how its route takes a body, its handler and zod schemas. */
export interface EndpointModule<T = unknown> {
  route: Route;
  handle: Handler<T>;
  request: SafeParse;
  response: SafeParse;
}

/** What `callFunction` asks of a zod schema: `safeParseAsync` for requests, as a body's checks may await (`validateAsync`). */
interface SafeParse {
  safeParse(value: unknown): ParseResult;
  safeParseAsync(value: unknown): Promise<ParseResult>;
}

type ParseResult = { success: boolean; error?: { issues: unknown[] } };

/** More of a call: a query, and what a 4xx answer means (see `callFunction`). */
export interface CallOptions {
  /** The query parameters, checked with the path parameters and the body against the request schema. */
  query?: Record<string, string>;
  /**
   * The device itself refuses a request whose form is right (e.g. the controller refused the
   * credentials): a 400/422 answer then comes with a request the request schema accepts.
   */
  refusedByDevice?: boolean;
}

/** A request body as sent: text (JSON, YAML, anything) or bytes (an upload), with its content type. */
export type RawBody = { contentType: string; text: string } | { contentType: string; bytes: Uint8Array };

/** A request for `callFunctionRaw`: path parameters, request headers (lower-case names, e.g. `accept`) and a body as sent. */
export interface RawRequest extends CallOptions {
  params?: Record<string, string>;
  headers?: Record<string, string>;
  body?: RawBody;
}

/**
 * Calls an endpoint module on `device` as a transport does (a body is sent as JSON,
 * `content-type: application/json`) and checks the answer against the module's schemas: a 200 is
 * JSON that the response schema accepts, for a request the request schema accepts; anything else is
 * a problem document (`application/problem+json`, with `type`, `title`, `detail` and the same
 * `status`). A 400 or 422 is a request the request schema rejects too (unless `refusedByDevice`), so
 * a test sends a bad request on purpose by simply sending it. The error log a 5xx writes is kept out
 * of the test output.
 *
 * @example
 * const { status, body } = await callFunction(stations, chuteDevice(), { chute: 'hello', network: 'wlan' });
 * await callFunction(ssidUpdate, device, { chute: 'hello', network: 'wlan' }, { ssid: '' }); // { status: 422, body: { errors: [{ path: 'body.ssid', … }] } }
 */
export async function callFunction<T = unknown>(
  module: EndpointModule,
  device: Device,
  params: Record<string, string> = {},
  body?: unknown,
  options: CallOptions = {},
): Promise<Answer<T>> {
  const sent = body === undefined ? undefined : { contentType: 'application/json', text: JSON.stringify(body) };
  const answer = await callFunctionRaw<T>(module, device, { ...options, params, ...(sent === undefined ? {} : { body: sent }) });
  return { status: answer.status, body: answer.body };
}

/**
 * `callFunction` with a body as sent (`{ contentType, text }`, or `{ contentType, bytes }` for an
 * upload) and request headers, answering the response headers and text too. The body reaches the
 * handler as a transport hands it over: bytes for one of the route's `upload` types, else text,
 * decoded as JSON unless the route decodes its own (`body: 'document'`); a body the transport
 * refuses is answered with its problem. The same checks as `callFunction`, where the request schema
 * is checked whenever the body decodes to a document (JSON or YAML, as the route decodes it), and a
 * 200 may answer YAML (`application/yaml`, `application/x-yaml`, `text/yaml`), decoded as the project
 * reads YAML and checked against the response schema like JSON.
 *
 * @example
 * await callFunctionRaw(configUpdate, device, { params: { chute: 'hello' }, body: { contentType: 'application/yaml', text: 'web: { port: 80 }\n' } }) // { status: 200, body: { change_id: 1 }, headers, text }
 * const { headers, body } = await callFunctionRaw(hostconfig, device, { headers: { accept: 'text/yaml' } }); // headers['content-type'] 'text/yaml; charset=utf-8'
 */
export async function callFunctionRaw<T = unknown>(module: EndpointModule, device: Device, request: RawRequest = {}): Promise<RawAnswer<T>> {
  const { params = {}, query = {}, body: sent } = request;
  const headers = { ...request.headers, ...(sent === undefined ? {} : { 'content-type': sent.contentType }) };
  const input: FunctionInput = { params, query, headers, body: undefined, text: '' };
  const log = vi.spyOn(console, 'error').mockImplementation(() => {});
  const out = await answered(module, input, sent, device).finally(() => log.mockRestore());
  const decoded = decodedAnswer(out);
  const document = sent === undefined ? { body: undefined } : sentDocument(module.route, sent);
  const requestOk = document === null ? null : (await module.request.safeParseAsync({ params, query, body: document.body })).success;
  if (out.status === 200) {
    expect(module.response.safeParse(decoded).error?.issues ?? [], 'the response schema accepts a 200 answer').toEqual([]);
    if (requestOk !== null) expect(requestOk, 'the request schema accepts a request that succeeded').toBe(true);
  } else {
    expect(out.headers['content-type']).toBe(PROBLEM_CONTENT_TYPE);
    expect(decoded).toMatchObject({ type: expect.any(String), title: expect.any(String), status: out.status, detail: expect.any(String) });
    if (requestOk !== null && (out.status === 400 || out.status === 422)) {
      if (request.refusedByDevice) expect(requestOk, 'the request schema accepts a request the device refused').toBe(true);
      else expect(requestOk, 'the request schema rejects a request answered 400/422').toBe(false);
    }
  }
  return { status: out.status, body: decoded as T, headers: out.headers, text: out.body };
}

/** Hands `sent` to the handler as a transport does (see `readInto` in runtime/http/app.ts) and answers what it answers. */
async function answered(module: EndpointModule, input: FunctionInput, sent: RawBody | undefined, device: Device): Promise<FunctionOutput> {
  if (sent !== undefined && isUpload(module.route, sent.contentType)) {
    input.bytes = 'bytes' in sent ? sent.bytes : new TextEncoder().encode(sent.text);
  } else if (sent !== undefined) {
    input.text = sentText(sent);
    try {
      if (module.route.body !== 'document') input.body = decodeBody(sent.contentType, input.text);
    } catch (error) {
      return problemOutput(error);
    }
  }
  return runHandler(module.handle, input, device);
}

/** The document a body decodes to as the route decodes it (JSON, or JSON or YAML for a `document` route), or null when it decodes to none (an upload, a malformed body). */
function sentDocument(route: EndpointModule['route'], sent: RawBody): { body: unknown } | null {
  if (isUpload(route, sent.contentType)) return null;
  const text = sentText(sent);
  try {
    return { body: route.body === 'document' ? decodeDocumentBody(sent.contentType, text) : decodeBody(sent.contentType, text) };
  } catch {
    return null;
  }
}

/** A body that is not an upload as text, as a transport reads it. */
function sentText(sent: RawBody): string {
  return 'text' in sent ? sent.text : new TextDecoder().decode(sent.bytes);
}

/** The body of an answer: JSON (a problem too), or a YAML document decoded as the project reads YAML. */
function decodedAnswer(out: FunctionOutput): unknown {
  const type = mediaType(out.headers['content-type']);
  if (out.status === 200) expect(DOCUMENT_MEDIA_TYPES, 'a 200 answers JSON or YAML').toContain(type);
  return type === 'application/json' || type === PROBLEM_CONTENT_TYPE ? JSON.parse(out.body) : parseYaml(out.body);
}

/**
 * The body of a 200 answer: `callFunction`, then a check that it answered 200.
 *
 * @example
 * const hardware = await okBody(hardwareGet, device); // typed by the module's handler
 */
export async function okBody<T>(module: EndpointModule<T>, device: Device, params: Record<string, string> = {}): Promise<T> {
  const { status, body } = await callFunction<T>(module, device, params);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}
