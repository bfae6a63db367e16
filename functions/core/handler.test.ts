import { describe, expect, it, vi } from 'vitest';
import { memoryDevice } from '../../test/support/memory-device.ts';
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
});
