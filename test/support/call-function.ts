import { expect, vi } from 'vitest';
import type { Device } from '../../functions/core/device.ts';
import { invoke, type Handler } from '../../functions/core/invoke.ts';
import { PROBLEM_CONTENT_TYPE } from '../../functions/core/problem.ts';

/*
 * The one way a test invokes a function (an endpoint module of functions/<area>/) in process: as a
 * transport does, with the module's request and response schemas checked on every call.
 */

/**
 * An answer: its status and decoded body. The HTTP client (`http-client.ts`) adds what only a wire
 * shows (content type, raw text).
 */
export interface Answer<T = any> {
  status: number;
  body: T;
}

/** What an endpoint module exports that `callFunction` uses: its handler and zod schemas. */
export interface EndpointModule<T = any> {
  handle: Handler<T>;
  request: SafeParse;
  response: SafeParse;
}

interface SafeParse {
  safeParse(value: unknown): { success: boolean; error?: { issues: unknown[] } };
}

/** More of a call: a query, and what a 4xx answer means (see `callFunction`). */
export interface CallOptions {
  query?: Record<string, string>;
  /**
   * The device itself refuses a request whose form is right (e.g. the controller refused the
   * credentials): a 400/422 answer then comes with a request the request schema accepts.
   */
  refusedByDevice?: boolean;
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
export async function callFunction<T = any>(
  module: EndpointModule,
  device: Device,
  params: Record<string, string> = {},
  body?: unknown,
  options: CallOptions = {},
): Promise<Answer<T>> {
  const log = vi.spyOn(console, 'error').mockImplementation(() => {});
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  const text = body === undefined ? '' : JSON.stringify(body);
  const out = await invoke(module.handle, { params, query: options.query ?? {}, headers, body, text }, device).finally(() => log.mockRestore());
  const decoded: unknown = JSON.parse(out.body);
  const requestOk = module.request.safeParse({ params, body }).success;
  if (out.status === 200) {
    expect(out.headers['content-type']).toBe('application/json');
    expect(module.response.safeParse(decoded).error?.issues ?? []).toEqual([]);
    expect(requestOk, 'the request schema accepts a request that succeeded').toBe(true);
  } else {
    expect(out.headers['content-type']).toBe(PROBLEM_CONTENT_TYPE);
    expect(decoded).toMatchObject({ type: expect.any(String), title: expect.any(String), status: out.status, detail: expect.any(String) });
    if (out.status === 400 || out.status === 422) {
      if (options.refusedByDevice) expect(requestOk, 'the request schema accepts a request the device refused').toBe(true);
      else expect(requestOk, 'the request schema rejects a request answered 400/422').toBe(false);
    }
  }
  return { status: out.status, body: decoded as T };
}

/**
 * The body of a 200 answer: `callFunction`, then a check that it answered 200.
 *
 * @example
 * const hardware = await okBody(hardwareGet, device); // typed by the module's handler
 */
export async function okBody<T = any>(module: EndpointModule<T>, device: Device, params: Record<string, string> = {}): Promise<T> {
  const { status, body } = await callFunction<T>(module, device, params);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}
