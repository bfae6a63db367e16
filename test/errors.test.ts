import { rm } from 'node:fs/promises';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../runtime/http/app.ts';
import { functionsFolder } from './support/test-bundles.ts';
import { memoryDevice } from './support/memory-device.ts';
import { streamedBody } from './support/streamed-body.ts';

const LIMIT = 64;
let dir: string;
let app: Hono;

beforeAll(async () => {
  dir = await functionsFolder(['test-echo.mjs', 'test-crash.mjs'], ['info-features-get.mjs']);
  app = await createApp({ functionsDir: dir, device: memoryDevice(), auth: null, bodyLimit: LIMIT });
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** Checks the RFC 9457 answer and hands back its body. */
async function expectProblem(res: Response, status: number): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ type: 'about:blank', title: expect.any(String), status, detail: expect.any(String) });
  return body;
}

const echo = (init: RequestInit) => app.request('/api/v1/test/echo/x', { method: 'POST', ...init });

describe('an unknown path', () => {
  it('responds with a 404 problem naming the path', async () => {
    const body = await expectProblem(await app.request('/api/v1/nope'), 404);
    expect(body.detail).toContain('/api/v1/nope');
  });

  it('responds with 404 for a path only one segment longer than a route', async () => {
    await expectProblem(await app.request('/api/v1/info/features/more'), 404);
  });
});

describe('a known path with another method', () => {
  it('responds with a 405 problem and an Allow header listing the methods of the path', async () => {
    const res = await app.request('/api/v1/info/features', { method: 'DELETE' });
    expect(res.headers.get('allow')).toBe('GET');
    await expectProblem(res, 405);
  });

  it('responds with 405 for a path with parameters, too', async () => {
    const res = await app.request('/api/v1/test/echo/anything', { method: 'PUT', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.headers.get('allow')).toBe('POST');
    await expectProblem(res, 405);
  });
});

describe('a request body', () => {
  it('responds with 400 when the JSON is malformed', async () => {
    const body = await expectProblem(await echo({ body: '{"ssid": ', headers: { 'content-type': 'application/json' } }), 400);
    expect(body.detail).toContain('not valid JSON');
  });

  it('responds with 415 when it is not JSON', async () => {
    await expectProblem(await echo({ body: 'ssid=lab', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415);
    await expectProblem(await echo({ body: '{}', headers: { 'content-type': 'text/plain' } }), 415);
  });

  it('responds with 413 when its Content-Length is over the limit', async () => {
    const big = JSON.stringify({ data: 'x'.repeat(LIMIT) });
    await expectProblem(await echo({ body: big, headers: { 'content-type': 'application/json', 'content-length': String(big.length) } }), 413);
  });

  it('responds with 413 when a streamed body (no Content-Length) grows over the limit', async () => {
    const streamed = streamedBody('x'.repeat(40), 1000);
    const res = await echo({ body: streamed.body, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit);
    await expectProblem(res, 413);
    expect(streamed.pulled()).toBeLessThan(10);
  });

  it('is accepted at exactly the limit', async () => {
    const body = JSON.stringify({ data: 'x'.repeat(LIMIT - 11) });
    expect(body.length).toBe(LIMIT);
    const res = await echo({ body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
  });
});

describe('a function that fails', () => {
  it('responds with a 500 problem that shows neither the error message nor a stack, and logs the error', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const res = await app.request('/api/v1/test/crash');
      const text = JSON.stringify(await expectProblem(res, 500));
      expect(text).not.toContain('secret-key');
      expect(text).not.toContain('EACCES');
      expect(text).not.toMatch(/at .*\.mjs/);
      expect(log).toHaveBeenCalled();
    } finally {
      log.mockRestore();
    }
  });
});
