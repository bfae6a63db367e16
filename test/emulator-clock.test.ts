import { describe, expect, it } from 'vitest';
import { call } from './support/http-client.ts';
import { CLEAN_ENV, useChutebox } from './support/spawn.ts';

/**
 * `chutebox emulate`'s seed and clock, as a controller's developer meets them: `--seed` (and
 * `CHUTEBOX_SEED`), printed at start and kept in the state, `--still`, and `/_chutebox/clock` over
 * HTTP. emulator/clock-api.test.ts checks the clock's route in-process, every refusal included.
 */

const start = useChutebox();
const emulate = (args: string[], env?: Record<string, string>) => start(['emulate', '--port', '0', '--no-auth', ...args], env && { ...CLEAN_ENV, ...env });

/** The reason `emulate` stopped at start, or null when it started. */
async function failure(args: string[]): Promise<string | null> {
  return start(['emulate', '--port', '0', ...args]).then(
    () => null,
    (error: Error) => error.message,
  );
}

describe('chutebox emulate --seed', () => {
  it('prints the seed it runs with at start, the default one when none is given, and keeps it in the state', async () => {
    const seeded = await emulate(['--seed', '4242']);
    expect(seeded.output()).toMatch(/^scenario default: .*\nseed 4242\n/m);
    expect((await call(seeded.url, 'GET', '/_chutebox/state')).body).toMatchObject({ seed: 4242 });
    const unseeded = await emulate([]);
    expect(unseeded.output()).toContain('\nseed 1\n');
  });

  it('is also read from CHUTEBOX_SEED; the flag wins', async () => {
    expect((await emulate([], { CHUTEBOX_SEED: '77' })).output()).toContain('\nseed 77\n');
    expect((await emulate(['--seed', '78'], { CHUTEBOX_SEED: '77' })).output()).toContain('\nseed 78\n');
  });

  it('refuses a seed that is no whole number from 0 to 2^53 - 1, with exit code 2 and a message naming --seed', async () => {
    for (const seed of ['-1', '1.5', 'lucky', '9007199254740992']) {
      expect(await failure([`--seed=${seed}`]), seed).toMatch(/exited with 2[\s\S]*--seed must be a whole number from 0 to 9007199254740991/);
    }
  });
});

describe('chutebox emulate --still', () => {
  it('says at start that the living network stands still; CHUTEBOX_STILL=1 does the same', async () => {
    expect((await emulate(['--still'])).output()).toContain('seed 1, the living network still (--still)');
    expect((await emulate([], { CHUTEBOX_STILL: '1' })).output()).toContain('the living network still');
    expect((await emulate([])).output()).not.toContain('still');
  });
});

describe('chutebox emulate: /_chutebox/clock', () => {
  it('answers the clock at the real time, and a PATCH stops it and moves it ten minutes on: the uptime follows', async () => {
    const server = await emulate([]);
    const before = Date.now();
    const clock = await call<{ now: number; elapsedMs: number; speed: number }>(server.url, 'GET', '/_chutebox/clock');
    expect(clock).toMatchObject({ status: 200, type: 'application/json', body: { speed: 1 } });
    expect(Math.abs(clock.body.now - before)).toBeLessThan(60_000);
    const uptime = async () => (await call<{ uptime: number }>(server.url, 'GET', '/api/v1/info/software')).body.uptime;
    const patched = await call<{ now: number; elapsedMs: number; speed: number }>(server.url, 'PATCH', '/_chutebox/clock', { json: { speed: 0 } });
    const stopped = await uptime();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await uptime()).toBe(stopped);
    const advanced = await call(server.url, 'PATCH', '/_chutebox/clock', { json: { advanceMs: 600_000 } });
    expect(advanced.body).toEqual({ now: patched.body.now + 600_000, elapsedMs: patched.body.elapsedMs + 600_000, speed: 0 });
    expect(await uptime()).toBe(stopped + 600);
    const refused = await call(server.url, 'PATCH', '/_chutebox/clock', { json: { advanceMs: -1 } });
    expect(refused).toMatchObject({ status: 422, type: 'application/problem+json', body: { errors: [{ path: 'body.advanceMs' }] } });
  });

  it('needs credentials when authentication is on, as the rest of the admin API', async () => {
    const server = await start(['emulate', '--port', '0']);
    expect((await call(server.url, 'GET', '/_chutebox/clock')).status).toBe(401);
    expect((await call(server.url, 'PATCH', '/_chutebox/clock', { json: { speed: 0 } })).status).toBe(401);
  });
});
