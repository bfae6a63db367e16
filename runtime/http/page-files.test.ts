import { describe, expect, it } from 'vitest';
import { takesGzip } from './page-files.ts';

describe('takesGzip', () => {
  it('reads Accept-Encoding: gzip or * without q=0, gzip’s own weight first', () => {
    expect(takesGzip('gzip, deflate, br')).toBe(true);
    expect(takesGzip('br;q=1.0, GZIP;q=0.5')).toBe(true);
    expect(takesGzip('*')).toBe(true);
    expect(takesGzip('gzip;q=0, identity')).toBe(false);
    expect(takesGzip('gzip;q=0, *')).toBe(false);
    expect(takesGzip('identity')).toBe(false);
    expect(takesGzip('')).toBe(false);
    expect(takesGzip(undefined)).toBe(false);
  });
});
