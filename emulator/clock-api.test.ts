import { describe, expect, it, vi } from 'vitest';
import { DIST_FUNCTIONS } from '../test/support/test-bundles.ts';
import { EMULATOR_ACCOUNT, emulatorApp, type EmulatorAppOptions } from './app.ts';
import { CLOCK_PATH } from './clock-api.ts';

const ROUTER = 'http://localhost';
const START = Date.UTC(2026, 0, 1, 12, 0, 0);
const PROVISION = { routerId: 'r-clock', apitoken: 'tok-clock', pdserver: 'https://paradrop.org', wampRouter: 'ws://paradrop.org:9086/ws' };

/** The default scenario's app, its clock standing at START unless told otherwise, and a request helper. */
async function router(options: EmulatorAppOptions = {}) {
  const { app } = await emulatorApp({ functionsDir: DIST_FUNCTIONS, auth: false, clock: { now: START, speed: 0 }, ...options });
  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) } };
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
    const answer = await app.fetch(new Request(`${ROUTER}${path}`, init));
    const text = await answer.text();
    return { status: answer.status, headers: answer.headers, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
  };
  const patch = (body: unknown, headers?: Record<string, string>) => request('PATCH', CLOCK_PATH, body, headers);
  return { app, request, patch };
}

describe('GET and PATCH /_chutebox/clock', () => {
  it('GET answers the clock as it started: its wall time, nothing elapsed, its speed', async () => {
    const { request } = await router();
    expect(await request('GET', CLOCK_PATH)).toMatchObject({ status: 200, body: { now: START, elapsedMs: 0, speed: 0 } });
  });

  it('PATCH applies now, elapsedMs, advanceMs and speed in that order and answers the new clock, which the device then reads', async () => {
    const { request, patch } = await router();
    const answer = await patch({ speed: 0, advanceMs: 600_000, elapsedMs: 1000, now: START + 86_400_000 });
    expect(answer).toMatchObject({ status: 200, body: { now: START + 86_400_000 + 600_000, elapsedMs: 601_000, speed: 0 } });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect((await request('GET', CLOCK_PATH)).body).toEqual(answer.body);
    const telemetry = await request('GET', '/api/v1/info/telemetry');
    expect(telemetry.body!.time).toBe((START + 86_400_000 + 600_000) / 1000);
  });

  it('advancing ten minutes grows the uptime by ten minutes', async () => {
    const { request, patch } = await router();
    const uptime = async () => (await request('GET', '/api/v1/info/software')).body!.uptime as number;
    const before = await uptime();
    await patch({ advanceMs: 600_000 });
    expect(await uptime()).toBe(before + 600);
  });

  it('refuses a bad body with a problem naming the field, and the clock does not change', async () => {
    const { request, patch } = await router();
    const refusals: [unknown, number, string[]][] = [
      [{ advanceMs: -5 }, 422, ['body.advanceMs']],
      [{ speed: 'fast' }, 422, ['body.speed']],
      [{ now: 1.5, tick: true }, 422, ['body.now', 'body.tick']],
      [[], 422, ['body']],
      ['{"advanceMs": ', 400, ['body']],
    ];
    for (const [body, status, paths] of refusals) {
      const answer = await patch(body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expect((answer.body!.errors as { path: string }[]).map((error) => error.path)).toEqual(paths);
    }
    const text = await request('PATCH', CLOCK_PATH, undefined, { 'content-type': 'text/plain' });
    expect(text.status).toBe(422);
    const typed = await router().then(({ app }) =>
      app.fetch(new Request(`${ROUTER}${CLOCK_PATH}`, { method: 'PATCH', headers: { 'content-type': 'text/plain' }, body: '{"speed": 2}' })),
    );
    expect(typed.status).toBe(415);
    expect((await patch({ advanceMs: 1, padding: 'x'.repeat(5000) })).status).toBe(413);
    expect((await request('GET', CLOCK_PATH)).body).toEqual({ now: START, elapsedMs: 0, speed: 0 });
  });

  it('answers another method with 405 and Allow', async () => {
    const { request } = await router();
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const answer = await request(method, CLOCK_PATH);
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get('allow')).toBe('GET, PATCH');
    }
  });

  it('needs the credentials of the rest of the API when auth is on', async () => {
    const { request, patch } = await router({ auth: true });
    expect((await request('GET', CLOCK_PATH)).status).toBe(401);
    expect((await patch({ advanceMs: 5 })).status).toBe(401);
    const login = await request('POST', '/api/v1/auth/local', EMULATOR_ACCOUNT);
    const headers = { authorization: `Bearer ${login.body!.token as string}` };
    expect(await patch({ advanceMs: 5 }, headers)).toMatchObject({ status: 200, body: { elapsedMs: 5 } });
  });

  it('lets a page of another origin PATCH it: the preflight allows the method', async () => {
    const { app } = await router();
    const preflight = await app.fetch(
      new Request(`${ROUTER}${CLOCK_PATH}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://dashboard.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'content-type' },
      }),
    );
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PATCH');
  });
});

describe('what runs in emulated time', () => {
  it("a change's steps wait for the clock: at speed 0 a stop stays queued until the clock is advanced past its steps", async () => {
    const { request, patch } = await router({ changeDelayMs: 200 });
    const { change_id: id } = (await request('POST', '/api/v1/chutes/hotspot/stop')).body as { change_id: number };
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await request('GET', `/api/v1/changes/${id}`)).body).toMatchObject({ state: 'queued' });
    await patch({ advanceMs: 1000 });
    const change = (await request('GET', `/api/v1/changes/${id}`)).body as { state: string; messages: { time: string }[] };
    expect(change.state).toBe('succeeded');
    // Each step at its own emulated time: queued at the start, running 200 ms later, done 200 ms after that.
    expect(change.messages.map((message) => Date.parse(message.time) - START)).toEqual([0, 200, 400, 400]);
  });

  it('telemetry is sent every interval of emulated time: at speed 0 only when the clock is advanced past it', async () => {
    const { request, patch } = await router();
    expect((await request('POST', '/api/v1/config/provision', PROVISION)).status).toBe(200);
    const telemetry = async () => (await request('GET', '/api/v1/config/provision')).body!.telemetry as { lastSuccess: string | null };
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await telemetry()).lastSuccess).toBeNull();
    await patch({ advanceMs: 60_000 });
    // The first report loads the code that makes it: it is delivered once that is done, stamped with the tick's time.
    await vi.waitFor(async () => expect((await telemetry()).lastSuccess).toBe(new Date(START + 60_000).toISOString()));
    await patch({ advanceMs: 60_000 });
    expect((await telemetry()).lastSuccess).toBe(new Date(START + 120_000).toISOString());
  });

  it('a token expires an hour of emulated time after it was issued', async () => {
    const { request, patch } = await router({ auth: true });
    const login = await request('POST', '/api/v1/auth/local', EMULATOR_ACCOUNT);
    const headers = { authorization: `Bearer ${login.body!.token as string}` };
    expect((await request('GET', '/api/v1/chutes', undefined, headers)).status).toBe(200);
    await patch({ advanceMs: 3_599_000 }, headers);
    expect((await request('GET', '/api/v1/chutes', undefined, headers)).status).toBe(200);
    await patch({ advanceMs: 1_000 }, headers);
    expect((await request('GET', '/api/v1/chutes', undefined, headers)).status).toBe(401);
  });
});
