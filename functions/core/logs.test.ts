import { describe, expect, it } from 'vitest';
import { entryLine, LogQuerySchema, selectEntries } from './logs.ts';
import { HttpProblem } from './problem.ts';
import { validateQuery } from './validate.ts';

const query = (fields: Record<string, string>) => validateQuery(LogQuerySchema, fields);

/** The problem a query is answered with. */
function refusal(fields: Record<string, string>): { status: number; errors: unknown } {
  try {
    query(fields);
  } catch (error) {
    if (error instanceof HttpProblem) return { status: error.status, errors: error.errors };
    throw error;
  }
  throw new Error(`the query ${JSON.stringify(fields)} was taken`);
}

describe('the query of a log', () => {
  it('is every line, with timestamps, not followed, when nothing is asked', () => {
    expect(query({})).toEqual({ follow: false, timestamps: true });
  });

  it('reads follow and timestamps as true, false, 1 or 0, tail as a number or all, since and until as RFC 3339 or epoch seconds', () => {
    expect(query({ follow: '1', timestamps: 'false', tail: '20', since: '2026-11-28T10:00:00Z', until: '1795867200.5' })).toEqual({
      follow: true,
      timestamps: false,
      tail: 20,
      since: Date.parse('2026-11-28T10:00:00Z'),
      until: 1795867200500,
    });
    expect(query({ follow: 'true', tail: 'all', since: '2026-11-28T11:00:00.250+01:00' })).toEqual({
      follow: true,
      timestamps: true,
      since: Date.parse('2026-11-28T10:00:00.250Z'),
    });
  });

  it('answers 400 naming query.tail, query.since or query.until when it is not of its form', () => {
    expect(refusal({ tail: 'ten' })).toEqual({ status: 400, errors: [{ path: 'query.tail', message: 'must be a whole number of lines or all' }] });
    expect(refusal({ since: 'yesterday' }).status).toBe(400);
    expect(refusal({ until: '2026-11-28 10:00' })).toMatchObject({ status: 400, errors: [{ path: 'query.until' }] });
  });

  it('answers 422 naming the parameter for a value of its form that breaks a rule', () => {
    expect(refusal({ follow: 'maybe' })).toEqual({ status: 422, errors: [{ path: 'query.follow', message: 'must be true, false, 1 or 0' }] });
    expect(refusal({ timestamps: 'yes' })).toMatchObject({ status: 422, errors: [{ path: 'query.timestamps' }] });
    expect(refusal({ tail: '9999999' })).toEqual({ status: 422, errors: [{ path: 'query.tail', message: 'must be at most 1000000' }] });
    expect(refusal({ since: '2026-13-01T10:00:00Z' })).toEqual({ status: 422, errors: [{ path: 'query.since', message: 'is not a time that exists' }] });
    expect(refusal({ since: '200', until: '100' })).toEqual({ status: 422, errors: [{ path: 'query.until', message: 'must be after since' }] });
  });
});

describe('the lines a query selects', () => {
  const lines = [1000, 2000, 3000, 4000].map((ms) => ({ ms, time: new Date(ms).toISOString(), stream: 'stdout' as const, message: `at ${ms}` }));
  const messages = (selected: { message: string }[]) => selected.map((line) => line.message);

  it('are those at or after since and before until, then the last tail of them', () => {
    expect(messages(selectEntries(lines, {}))).toEqual(['at 1000', 'at 2000', 'at 3000', 'at 4000']);
    expect(messages(selectEntries(lines, { since: 2000, until: 4000 }))).toEqual(['at 2000', 'at 3000']);
    expect(messages(selectEntries(lines, { since: 2000, tail: 1 }))).toEqual(['at 4000']);
    expect(messages(selectEntries(lines, { tail: 0 }))).toEqual([]);
    expect(messages(selectEntries(lines, { tail: 10 }))).toHaveLength(4);
  });

  it('are sent as one JSON object a line, without time when timestamps is false', () => {
    expect(entryLine(lines[0]!, true)).toBe('{"time":"1970-01-01T00:00:01.000Z","stream":"stdout","message":"at 1000"}\n');
    expect(entryLine(lines[0]!, false)).toBe('{"stream":"stdout","message":"at 1000"}\n');
  });
});
