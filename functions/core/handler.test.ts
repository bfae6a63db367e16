import { describe, expect, it, vi } from 'vitest';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { deepFreeze, isDeepFrozen } from './deep-freeze.ts';
import { runHandler, reply } from './handler.ts';
import { HttpProblem } from './problem.ts';

const input = { params: {}, query: {}, headers: {}, body: undefined, text: '' };

describe('invoke', () => {
  it('answers a JSON value as 200 application/json', async () => {
    expect(await runHandler(async () => ({ ok: true }), input, memoryDevice())).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"ok":true}',
    });
  });

  it('answers each value as it is now: a mutable value changed since the last answer is serialised again', async () => {
    const value = { stations: 1 };
    const first = await runHandler(async () => value, input, memoryDevice());
    value.stations = 2;
    const second = await runHandler(async () => value, input, memoryDevice());
    expect([first.body, second.body]).toEqual(['{"stations":1}', '{"stations":2}']);
  });

  it('answers a reply with its own body, content type and headers', async () => {
    const out = await runHandler(async () => reply('ok: true\n', 'application/yaml', { vary: 'accept' }), input, memoryDevice());
    expect(out).toEqual({ status: 200, headers: { vary: 'accept', 'content-type': 'application/yaml' }, body: 'ok: true\n' });
  });

  it('answers a kept (deep-frozen) reply with the same frozen headers every time, and a reply made anew with its own', async () => {
    const kept = deepFreeze(reply('ok: true\n', 'application/yaml', { vary: 'accept' }));
    const [first, again] = [await runHandler(async () => kept, input, memoryDevice()), await runHandler(async () => kept, input, memoryDevice())];
    expect(again.headers).toBe(first.headers);
    expect(isDeepFrozen(first.headers)).toBe(true);
    const made = await runHandler(async () => reply('ok: true\n', 'application/yaml', { vary: 'accept' }), input, memoryDevice());
    expect(made.headers).toEqual(first.headers);
    expect(made.headers).not.toBe(first.headers);
  });

  it('answers a thrown HttpProblem as a problem document', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const out = await runHandler(
      async () => {
        throw new HttpProblem(404, 'there is no chute named nope');
      },
      input,
      memoryDevice(),
    ).finally(() => log.mockRestore());
    expect(out.status).toBe(404);
    expect(out.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(out.body)).toMatchObject({ status: 404, detail: 'there is no chute named nope' });
  });

  /** What `runHandler` wrote to the log (console.error) while answering what `fail` throws, each call's text. */
  async function loggedFor(fail: () => never): Promise<string[]> {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await runHandler(async () => fail(), input, memoryDevice());
      return log.mock.calls.map((args) => args.map((arg) => (arg instanceof Error ? (arg.stack ?? '') : String(arg))).join(' '));
    } finally {
      log.mockRestore();
    }
  }

  it('logs an expected problem of the device (a 503 a handler threw) as one line, without a stack', async () => {
    const lines = await loggedFor(() => {
      throw new HttpProblem(503, "hostapd's control interface is not there for lab/wlan");
    });
    expect(lines).toEqual(["answered 503 Service Unavailable: hostapd's control interface is not there for lab/wlan"]);
  });

  it('logs nothing for a problem of the request (a 4xx), which the client was told', async () => {
    expect(
      await loggedFor(() => {
        throw new HttpProblem(404, 'there is no chute named nope');
      }),
    ).toEqual([]);
  });

  it('logs an unexpected error with its stack', async () => {
    const [line, ...more] = await loggedFor(() => {
      throw new TypeError('cannot read properties of undefined');
    });
    expect(more).toEqual([]);
    expect(line).toMatch(/^TypeError: cannot read properties of undefined\n\s+at /);
  });
});
