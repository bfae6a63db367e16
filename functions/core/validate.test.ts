import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { HttpProblem } from './problem.ts';
import { inputPath, validate, validateAsync, validateQuery } from './validate.ts';

const Config = z.object({
  net: z.record(z.string(), z.strictObject({ type: z.string(), dns: z.optional(z.array(z.string())) })),
  web: z.optional(z.object({ port: z.int().check(z.minimum(1), z.maximum(65535, { error: 'must be at most 65535' })) })),
});

/** What `validate` threw. */
function rejection(value: unknown, at?: string): HttpProblem {
  try {
    validate(Config, value, at);
  } catch (error) {
    if (error instanceof HttpProblem) return error;
    throw error;
  }
  throw new Error('validate accepted the value');
}

describe('validate', () => {
  it('gives back the value the schema makes of a valid one', () => {
    expect(validate(Config, { net: { wlan: { type: 'wifi' } }, extra: 1 })).toEqual({ net: { wlan: { type: 'wifi' } } });
  });

  it('throws a 422 listing every violation with its path from the body', () => {
    const problem = rejection({ net: { wlan: { type: 7, dns: ['8.8.8.8', 9] } }, web: { port: 70000 } });
    expect(problem.status).toBe(422);
    expect(problem.errors).toEqual([
      { path: 'body.net.wlan.type', message: expect.stringMatching(/expected string/) },
      { path: 'body.net.wlan.dns[1]', message: expect.stringMatching(/expected string/) },
      { path: 'body.web.port', message: 'must be at most 65535' },
    ]);
    expect(problem.message).toMatch(/^body is not valid: body\.net\.wlan\.type .+ \(and 2 more\)$/);
  });

  it("names each unknown key of a strict object, and says what is wrong in English when the schema doesn't", () => {
    expect(rejection({ net: { wlan: { type: 'wifi', mode: 'ap', channel: 6 } } }).errors).toEqual([
      { path: 'body.net.wlan.mode', message: 'is not a known field' },
      { path: 'body.net.wlan.channel', message: 'is not a known field' },
    ]);
    expect(rejection(undefined).errors).toEqual([{ path: 'body', message: 'Invalid input: expected object, received undefined' }]);
  });

  it('starts paths where it is told', () => {
    expect(rejection({ net: 1 }, 'config').errors).toEqual([{ path: 'config.net', message: expect.any(String) }]);
  });

  it('gives paths without a prefix, and names the subject in the detail, when told to start at the value itself', () => {
    const problem = rejection({ net: { wlan: { type: 'wifi', dns: [9] } }, web: { port: 0 } }, '');
    expect(problem.errors).toEqual([
      { path: 'net.wlan.dns[0]', message: expect.stringMatching(/expected string/) },
      { path: 'web.port', message: expect.any(String) },
    ]);
    expect(problem.message).toMatch(/^the input is not valid: net\.wlan\.dns\[0\] .+ \(and 1 more\)$/);
    expect(rejection([], '').errors).toEqual([{ path: '', message: expect.stringMatching(/expected object/) }]);
    expect(() => validate(Config, 7, '', 'the chute configuration')).toThrow(/^the chute configuration is not valid: Invalid input/);
  });

  it('answers a schema whose check awaits once the check is done: the value, or the same 422 naming the field', async () => {
    const Named = z.object({
      name: z.string().check(
        z.superRefine(async (name: string, context) => {
          await Promise.resolve();
          if (name === 'root') context.issues.push({ code: 'custom', message: 'is taken', input: name });
        }),
      ),
    });
    expect(await validateAsync(Named, { name: 'alice', extra: 1 })).toEqual({ name: 'alice' });
    const problem = await validateAsync(Named, { name: 'root' }).catch((error: unknown) => error);
    expect(problem).toBeInstanceOf(HttpProblem);
    expect(problem).toMatchObject({ status: 422, message: 'body is not valid: body.name is taken', errors: [{ path: 'body.name', message: 'is taken' }] });
    expect(() => validate(Named, { name: 'alice' })).toThrow();
  });

  it('writes paths as JavaScript does', () => {
    expect(inputPath('body', ['net', 'wlan', 'dns', 0])).toBe('body.net.wlan.dns[0]');
    expect(inputPath('params', [])).toBe('params');
    expect(inputPath('', ['net', 'wlan', 'ssid'])).toBe('net.wlan.ssid');
    expect(inputPath('', ['dns', 1])).toBe('dns[1]');
    expect(inputPath('', [])).toBe('');
  });
});

describe('validateQuery', () => {
  const Count = z.pipe(z.string().check(z.regex(/^[0-9]+$/, { error: 'must be a whole number' })), z.transform(Number));
  const Query = z.object({ count: z._default(z.pipe(Count, z.number().check(z.maximum(9, { error: 'must be at most 9' }))), 3), from: z.optional(Count) });
  /** What `validateQuery` threw for `query`. */
  const refused = (query: Record<string, string>) => {
    try {
      validateQuery(Query, query);
    } catch (error) {
      if (error instanceof HttpProblem) return { status: error.status, errors: error.errors };
      throw error;
    }
    throw new Error('validateQuery accepted the query');
  };

  it('answers the query as the schema reads it, defaults filled in', () => {
    expect(validateQuery(Query, { count: '7', from: '12', other: 'kept out' })).toEqual({ count: 7, from: 12 });
    expect(validateQuery(Query, {})).toEqual({ count: 3 });
  });

  it('refuses a malformed parameter with 400 naming query.<name>, every bad one listed', () => {
    expect(refused({ count: 'seven', from: 'x' })).toEqual({
      status: 400,
      errors: [
        { path: 'query.count', message: 'must be a whole number' },
        { path: 'query.from', message: 'must be a whole number' },
      ],
    });
    expect(refused({ count: '12', from: 'x' }).status).toBe(400);
  });

  it('refuses a well-formed parameter that breaks a rule with 422 naming query.<name>', () => {
    expect(refused({ count: '12' })).toEqual({ status: 422, errors: [{ path: 'query.count', message: 'must be at most 9' }] });
  });
});
