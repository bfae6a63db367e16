import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionsFolder } from '../../test/support/test-bundles.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { fixedAuth } from '../auth/index.ts';
import type { AnsweredRequest } from './api.ts';
import { createApp } from './app.ts';

let dir: string;
beforeAll(async () => {
  dir = await functionsFolder(['test-echo.mjs', 'test-crash.mjs'], ['info-features-get.mjs']);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('what the app tells of each request it answered (the request log and metrics)', () => {
  it('tells the method, the route as mounted, the status, the time taken and the user, for answers, refusals, errors and unknown paths', async () => {
    const told: AnsweredRequest[] = [];
    const auth = await fixedAuth({ username: 'paradrop', password: 'secret' });
    const app = await createApp({ functionsDir: dir, device: memoryDevice(), auth, answered: (request) => told.push(request) });
    const authorization = basic('paradrop', 'secret');
    expect((await app.request('/api/v1/info/features', { headers: { authorization } })).status).toBe(200);
    expect(
      (await app.request('/api/v1/test/echo/x', { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: '{}' })).status,
    ).toBe(200);
    expect((await app.request('/api/v1/info/features', { headers: { authorization: basic('paradrop', 'wrong') } })).status).toBe(401);
    expect((await app.request('/api/v1/test/crash', { headers: { authorization } })).status).toBe(500);
    expect((await app.request('/api/v1/nothing/here', { headers: { authorization } })).status).toBe(404);
    expect((await app.request('/api/v1/info/features', { method: 'DELETE', headers: { authorization } })).status).toBe(405);
    expect(told.map(({ seconds, ...rest }) => rest)).toEqual([
      { method: 'GET', route: '/api/v1/info/features', status: 200, user: 'paradrop' },
      { method: 'POST', route: '/api/v1/test/echo/:name', status: 200, user: 'paradrop' },
      { method: 'GET', route: '/api/v1/info/features', status: 401, user: null },
      { method: 'GET', route: '/api/v1/test/crash', status: 500, user: 'paradrop' },
      { method: 'GET', route: null, status: 404, user: null },
      { method: 'DELETE', route: null, status: 405, user: null },
    ]);
    for (const { seconds } of told) expect(seconds).toBeGreaterThanOrEqual(0);
  });

  it('answers as before when nobody is told: a refusal and a crash keep their problem answers', async () => {
    const app = await createApp({ functionsDir: dir, device: memoryDevice(), auth: await fixedAuth({ username: 'paradrop', password: 'secret' }) });
    const refused = await app.request('/api/v1/info/features');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    const crashed = await app.request('/api/v1/test/crash', { headers: { authorization: basic('paradrop', 'secret') } });
    expect(crashed.status).toBe(500);
    expect(await crashed.text()).not.toContain('secret-key');
  });
});
