import http from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { expect } from 'vitest';
import type { ChangeRecord } from '../../functions/core/device/index.ts';
import { PROBLEM_CONTENT_TYPE, type Problem } from '../../functions/core/problem.ts';
import type { Answer } from './call-function.ts';

/*
 * The one HTTP client of the tests that talk to a running chutebox (the built CLI, the emulator):
 * calls that answer the status, the raw text and the decoded body, checks for a 200 JSON body or a
 * problem, and a wait for a change to become final. The WebSocket client is websocket-client.ts.
 */

/**
 * An answer over HTTP: `Answer` (status, body: the decoded JSON, the values of the lines of
 * newline-delimited JSON, or the text when the answer is neither; of the type `T` the caller
 * expects, unchecked) plus its content type, its raw text (to check what it must not contain) and
 * its headers.
 */
export interface HttpAnswer<T = unknown> extends Answer<T> {
  type: string | null;
  text: string;
  headers: Headers;
}

export interface CallOptions {
  /** Sent as JSON (`content-type: application/json`). */
  json?: unknown;
  /** Sent as is, with its content type. */
  document?: { type: string; text: string };
  /** Sent in chunks as the stream gives them, without a Content-Length (`streamedBody`). */
  streamed?: { type: string; body: ReadableStream<Uint8Array> };
  headers?: Record<string, string>;
}

/**
 * The `Authorization` header of HTTP Basic credentials, as a browser sends them once a person
 * answered its prompt.
 *
 * @example
 * await call(server.url, 'GET', '/', { headers: basicAuth('paradrop', '') });
 */
export function basicAuth(username: string, password: string): { authorization: string } {
  return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}

/** How long a change may take to become final (pdconf runs a few scripts). */
const CHANGE_DEADLINE_MS = 20_000;

/**
 * Calls `method endpoint` on the chutebox at `url` (e.g. `http://127.0.0.1:41234`).
 *
 * @example
 * const { status, body } = await call(server.url, 'PUT', '/api/v1/config/hostconfig', { json: config });
 */
export async function call<T = unknown>(url: string, method: string, endpoint: string, options: CallOptions = {}): Promise<HttpAnswer<T>> {
  const { headers, body } = requestOf(options);
  const res = await fetch(`${url}${endpoint}`, { method, headers, ...(body === undefined ? {} : { body, duplex: 'half' }) } as RequestInit);
  return answerOf<T>(res.status, res.headers, await res.text());
}

/**
 * `call` on a connection of its own, closed after it: for a request the server answers before it has
 * read the body (a 413), whose connection it drains for a while and may then drop, which `fetch`
 * would otherwise hand on to the next call.
 *
 * @example
 * const answer = await callAlone(server.url, 'PUT', '/_chutebox/state', { document: { type: 'application/json', text: huge } });
 */
export async function callAlone<T = unknown>(url: string, method: string, endpoint: string, options: CallOptions = {}): Promise<HttpAnswer<T>> {
  const { headers, body } = requestOf(options);
  const agent = new http.Agent({ keepAlive: true });
  try {
    return await new Promise<HttpAnswer<T>>((resolve, reject) => {
      const request = http.request(`${url}${endpoint}`, { method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve(answerOf<T>(res.statusCode ?? 0, new Headers(res.headers as Record<string, string>), Buffer.concat(chunks).toString('utf8'))),
        );
        res.on('error', reject);
      });
      request.on('error', reject);
      if (typeof body === 'object') Readable.fromWeb(body as NodeReadableStream<Uint8Array>).pipe(request);
      else request.end(body);
    });
  } finally {
    agent.destroy();
  }
}

/** The headers and body of a call's request. */
function requestOf(options: CallOptions): { headers: Record<string, string>; body: string | ReadableStream<Uint8Array> | undefined } {
  const headers: Record<string, string> = { ...options.headers };
  if (options.json !== undefined) return { headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(options.json) };
  if (options.document !== undefined) return { headers: { ...headers, 'content-type': options.document.type }, body: options.document.text };
  if (options.streamed !== undefined) return { headers: { ...headers, 'content-type': options.streamed.type }, body: options.streamed.body };
  return { headers, body: undefined };
}

/** An answer as the tests read it: the body decoded when it is JSON. */
function answerOf<T>(status: number, headers: Headers, text: string): HttpAnswer<T> {
  const type = headers.get('content-type');
  return { status, type, text, body: decoded(type, text) as T, headers };
}

/** A body decoded by its media type: JSON, newline-delimited JSON as the list of its lines' values, or the text. */
function decoded(type: string | null, text: string): unknown {
  if (type === 'application/x-ndjson') return text.split('\n').flatMap((line) => (line === '' ? [] : [JSON.parse(line)]));
  return /json/.test(type ?? '') && text !== '' ? JSON.parse(text) : text;
}

/**
 * `call` on an endpoint below `/api/v1` of a started chutebox, with a body sent as JSON or, when it
 * is a string, as it is with its media `type`.
 *
 * @example
 * await callApi(server, 'PUT', '/config/hostconfig', yamlText, 'application/yaml');
 */
export function callApi<T = unknown>(
  server: { url: string },
  method: string,
  endpoint: string,
  body?: unknown,
  type = 'application/json',
  headers: Record<string, string> = {},
): Promise<HttpAnswer<T>> {
  const document = body === undefined ? undefined : { type, text: typeof body === 'string' ? body : JSON.stringify(body) };
  return call<T>(server.url, method, `/api/v1${endpoint}`, { headers, ...(document === undefined ? {} : { document }) });
}

/**
 * Sends a call that queues a change (below `/api/v1`, as `callApi`), checks its `{change_id}` answer and
 * waits until the change is final.
 */
export async function changeOver(server: { url: string }, method: string, endpoint: string, body?: unknown, type?: string): Promise<ChangeRecord> {
  const answer = await callApi<{ change_id: number }>(server, method, endpoint, body, type);
  expect(answer, `${method} ${endpoint}`).toMatchObject({ status: 200, type: 'application/json' });
  expect(Object.keys(answer.body)).toEqual(['change_id']);
  expect(Number.isInteger(answer.body.change_id)).toBe(true);
  return finalChange(server.url, answer.body.change_id);
}

/**
 * Polls `GET /api/v1/changes/<id>` until the change is `succeeded` or `failed`, and answers it.
 *
 * @throws Error when it is not final after 20 s.
 */
export async function finalChange(url: string, id: number, headers: Record<string, string> = {}): Promise<ChangeRecord> {
  const deadline = Date.now() + CHANGE_DEADLINE_MS;
  for (;;) {
    const answer = await call<ChangeRecord>(url, 'GET', `/api/v1/changes/${id}`, { headers });
    if (answer.status !== 200) throw new Error(`GET /api/v1/changes/${id} answered ${answer.status}: ${answer.text}`);
    const change = answer.body;
    if (change.state === 'succeeded' || change.state === 'failed') return change;
    if (Date.now() > deadline) throw new Error(`change ${id} is still ${change.state} after ${CHANGE_DEADLINE_MS / 1000} s: ${answer.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The pages of `GET /api/v1/changes?limit=<limit>` on a started chutebox, the first one and each that
 * the one before leads to by its `Link: <…>; rel="next"` header, as a client pages: each page's
 * changes (newest first) and its `Link` header (null on the last page).
 *
 * @example
 * const every = (await changePages(server)).flatMap((page) => page.changes);
 */
export async function changePages(server: { url: string }, limit = 200): Promise<{ changes: ChangeRecord[]; link: string | null }[]> {
  const pages: { changes: ChangeRecord[]; link: string | null }[] = [];
  for (let next: string | undefined = `/api/v1/changes?limit=${limit}`; next !== undefined; ) {
    const answer: HttpAnswer<ChangeRecord[]> = await call(server.url, 'GET', next);
    expect(answer, `GET ${next}`).toMatchObject({ status: 200, type: 'application/json' });
    const link = answer.headers.get('link');
    pages.push({ changes: answer.body, link });
    next = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1]!;
  }
  return pages;
}

/**
 * The body of a 200 JSON answer to `GET /api/v1<endpoint>` (`callApi`), checked to be one.
 *
 * @example
 * const chutes = await getJson<ChuteRecord[]>(server, '/chutes/');
 */
export async function getJson<T = unknown>(server: { url: string }, endpoint: string, headers: Record<string, string> = {}): Promise<T> {
  const answer = await callApi<T>(server, 'GET', endpoint, undefined, undefined, headers);
  expect(answer, `GET ${endpoint}`).toMatchObject({ status: 200, type: 'application/json' });
  return answer.body;
}

/**
 * The problem document of an answer to `method /api/v1<endpoint>` (`callApi`), checked to have
 * `status` in its status line and its body and the problem content type.
 *
 * @example
 * expect((await problemOf(server, 'GET', '/chutes/nope', 404)).detail).toContain('nope');
 */
export async function problemOf(server: { url: string }, method: string, endpoint: string, status: number, body?: unknown): Promise<Problem> {
  const answer = await callApi<Problem>(server, method, endpoint, body);
  expect(answer.status, `${method} ${endpoint}: ${answer.text}`).toBe(status);
  expect(answer.type).toBe(PROBLEM_CONTENT_TYPE);
  expect(answer.body.status).toBe(status);
  return answer.body;
}

/** An answer read line by line as it comes (newline-delimited JSON, such as a chute's log). */
export interface LineStream {
  status: number;
  type: string | null;
  headers: Headers;
  /** The next line, without its newline; null once the answer has ended. */
  next(): Promise<string | null>;
  /** Every line until the answer ends. */
  rest(): Promise<string[]>;
  /** Goes away: aborts the request, as a client that closes its connection. */
  close(): void;
}

/**
 * `GET <endpoint>` on the chutebox at `url`, its answer read line by line as it streams.
 *
 * @example
 * const log = await streamLines(server.url, '/api/v1/chutes/hello/logs?follow=true');
 * JSON.parse((await log.next())!) // { time: '…', stream: 'stdout', message: '…' }
 * log.close();
 */
export async function streamLines(url: string, endpoint: string, headers: Record<string, string> = {}): Promise<LineStream> {
  const going = new AbortController();
  const res = await fetch(`${url}${endpoint}`, { headers, signal: going.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  const lines: string[] = [];
  let ended = false;
  async function next(): Promise<string | null> {
    while (lines.length === 0 && !ended) {
      const { done, value } = await reader.read();
      if (done) ended = true;
      const parts = (pending + (value ?? '')).split('\n');
      pending = parts.pop()!;
      lines.push(...parts);
      if (ended && pending !== '') lines.push(pending);
    }
    return lines.shift() ?? null;
  }
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    headers: res.headers,
    next,
    async rest() {
      const all: string[] = [];
      for (let line = await next(); line !== null; line = await next()) all.push(line);
      return all;
    },
    close: () => going.abort(),
  };
}
