import { describe, expect, it } from 'vitest';
import { decodeBody, readBody } from './decode.ts';
import { isHttpProblem } from '../problem.ts';

/** The status of the HttpProblem a call throws. */
function statusOf(call: () => unknown): number {
  try {
    call();
  } catch (error) {
    if (isHttpProblem(error)) return error.status;
    throw error;
  }
  throw new Error('expected an HttpProblem');
}

describe('the request body a transport hands a function', () => {
  it('is the decoded JSON on a JSON route, and undefined when there is none', () => {
    expect(decodeBody('application/json; charset=utf-8', '{"ssid":"lab"}')).toEqual({ ssid: 'lab' });
    expect(readBody({}, 'application/json', '[1]')).toEqual([1]);
    expect(readBody({}, undefined, '')).toBeUndefined();
  });

  it('answers 415 for YAML, 400 for malformed JSON and 413 over the limit on a JSON route', () => {
    expect(statusOf(() => readBody({}, 'application/yaml', 'a: 1'))).toBe(415);
    expect(statusOf(() => readBody({ body: 'json' }, 'application/json', '{"a":'))).toBe(400);
    expect(statusOf(() => readBody({}, 'application/json', '"é"', 3))).toBe(413);
  });

  it.each([
    [
      'the content type of a body that is not JSON, and what is accepted',
      'text/plain',
      'ssid=lab',
      {
        status: 415,
        message: 'the request body must be one of application/json, not text/plain',
        errors: [{ path: 'headers.content-type', message: 'must be one of application/json, not text/plain' }],
        extensions: { accepted: ['application/json'] },
      },
    ],
    [
      'the body of malformed JSON',
      'application/json',
      '{"a": ',
      {
        status: 400,
        message: 'the request body is not valid JSON: Unexpected end of JSON input',
        errors: [{ path: 'body', message: 'is not valid JSON: Unexpected end of JSON input' }],
      },
    ],
  ])('names %s, as a document route does', (_, contentType, text, problem) => {
    expect(() => decodeBody(contentType, text)).toThrow(expect.objectContaining(problem));
  });

  it('is left to the handler on a document route (YAML passes), with the size limit still enforced', () => {
    expect(readBody({ body: 'document' }, 'application/yaml', 'net: {}\n')).toBeUndefined();
    expect(readBody({ body: 'document' }, 'text/plain', 'whatever')).toBeUndefined();
    expect(statusOf(() => readBody({ body: 'document' }, 'application/yaml', 'x'.repeat(11), 10))).toBe(413);
  });
});
