import { describe, expect, it } from 'vitest';
import { corsPolicy } from './cors.ts';

const JSON_ANSWER = Object.freeze({ 'content-type': 'application/json' });

describe('corsPolicy(…).answerHeaders', () => {
  it("lets a page of an allowed origin read a GET's ETag", () => {
    for (const cors of [corsPolicy(undefined), corsPolicy('https://a.example')]) {
      const headers = cors.answerHeaders({ 'content-type': 'application/json', etag: '"a1"' }, 'https://a.example');
      expect(headers['access-control-expose-headers']?.split(',')).toContain('ETag');
      expect(headers.etag).toBe('"a1"');
    }
  });

  it("answers the answer's headers followed by the CORS headers of the request's origin", () => {
    const cors = corsPolicy('https://a.example');
    const headers = cors.answerHeaders(JSON_ANSWER, 'https://a.example');
    expect(Object.entries(headers)).toEqual([
      ['content-type', 'application/json'],
      ['access-control-allow-origin', 'https://a.example'],
      ['access-control-expose-headers', 'WWW-Authenticate,Retry-After,Allow,Link,ETag'],
      ['vary', 'Origin'],
    ]);
    expect(cors.answerHeaders(JSON_ANSWER, 'https://evil.example')).toEqual({
      'content-type': 'application/json',
      'access-control-expose-headers': 'WWW-Authenticate,Retry-After,Allow,Link,ETag',
      vary: 'Origin',
    });
  });

  it('gives the same frozen headers again for the same frozen answer headers and CORS headers', () => {
    const cors = corsPolicy(undefined);
    const first = cors.answerHeaders(JSON_ANSWER, 'https://a.example');
    expect(cors.answerHeaders(JSON_ANSWER, 'https://b.example')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it("makes them again when the request's origin has other CORS headers", () => {
    const cors = corsPolicy('https://a.example,https://b.example');
    const a = cors.answerHeaders(JSON_ANSWER, 'https://a.example');
    const b = cors.answerHeaders(JSON_ANSWER, 'https://b.example');
    expect(b['access-control-allow-origin']).toBe('https://b.example');
    expect(cors.answerHeaders(JSON_ANSWER, 'https://a.example')).toEqual(a);
  });

  it('keeps nothing for answer headers that are not frozen, which their maker may still change', () => {
    const cors = corsPolicy(undefined);
    const problem: Record<string, string> = { 'content-type': 'application/problem+json' };
    const first = cors.answerHeaders(problem, undefined);
    problem['retry-after'] = '30';
    expect(cors.answerHeaders(problem, undefined)).toEqual({ ...first, 'retry-after': '30' });
  });
});

describe('corsPolicy(…).listed', () => {
  it('names the origins of --cors-origin, never *: * trusts no one with credentials', () => {
    expect(corsPolicy(undefined).listed).toEqual([]);
    expect(corsPolicy('*').listed).toEqual([]);
    expect(corsPolicy(' https://a.example, *,https://b.example ').listed).toEqual(['https://a.example', 'https://b.example']);
  });
});
