import { describe, expect, it } from 'vitest';
import { logLine, logRequest, selectEntries } from './logs.ts';
import { HttpProblem } from './problem.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');

/** The request read from the query of a log. */
const read = (query: Record<string, string>) => logRequest(query, NOW);

/** The problem a request is refused with. */
function refusal(query: Record<string, string>): HttpProblem {
  try {
    read(query);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpProblem);
    return error as HttpProblem;
  }
  throw new Error(`${JSON.stringify(query)} was taken`);
}

describe('the query of a log', () => {
  it('without one asks for the whole log, with timestamps, not following', () => {
    expect(read({})).toEqual({ options: { follow: false, since: null, until: null, tail: null }, timestamps: true });
  });

  it('reads follow, tail and timestamps', () => {
    expect(read({ follow: 'true', tail: '20', timestamps: '0' })).toEqual({
      options: { follow: true, since: null, until: null, tail: 20 },
      timestamps: false,
    });
    expect(read({ follow: '1', tail: 'all', timestamps: 'false' }).options).toMatchObject({ follow: true, tail: null });
  });

  it('reads a time as RFC 3339 (any offset), as seconds since the epoch, or as a time before the request, to the nanosecond', () => {
    expect(read({ since: '2026-11-21T13:30:00.250+02:00' }).options.since).toBe('2026-11-21T11:30:00.250000000Z');
    expect(read({ since: '2026-11-21T11:30:00Z', until: '2026-11-21T11:30:00.123456789Z' }).options).toMatchObject({
      since: '2026-11-21T11:30:00.000000000Z',
      until: '2026-11-21T11:30:00.123456789Z',
    });
    expect(read({ since: '1795262400.000000007' }).options.since).toBe('2026-11-21T12:00:00.000000007Z');
    expect(read({ since: '90s', until: '1m' }).options).toMatchObject({ since: '2026-11-21T11:58:30.000000000Z', until: '2026-11-21T11:59:00.000000000Z' });
    expect(read({ since: '2h' }).options.since).toBe('2026-11-21T10:00:00.000000000Z');
  });

  it('refuses a malformed parameter with 400 naming it, and every malformed one at once', () => {
    const problem = refusal({ follow: 'yes', tail: '-1', since: 'yesterday', until: '2026-11-21 12:00' });
    expect(problem.status).toBe(400);
    expect(problem.errors?.map((error) => error.path).sort()).toEqual(['query.follow', 'query.since', 'query.tail', 'query.until']);
  });

  it('refuses a date that is not in the calendar, and until before since, with 422 naming it', () => {
    expect(refusal({ since: '2026-02-30T00:00:00Z' })).toMatchObject({
      status: 422,
      errors: [{ path: 'query.since', message: 'is not a date of the calendar' }],
    });
    expect(refusal({ since: '2026-11-21T11:30:00.000000002Z', until: '2026-11-21T11:30:00.000000001Z' })).toMatchObject({ status: 422 });
    expect(refusal({ since: '10m', until: '1h' })).toMatchObject({ status: 422, errors: [{ path: 'query.until', message: 'must not be before since' }] });
  });
});

describe('the lines a query selects', () => {
  const lines = [1000, 2000, 3000, 4000].map((ms) => ({ time: new Date(ms).toISOString(), stream: 'stdout' as const, message: `at ${ms}` }));
  const messages = (selected: { message: string }[]) => selected.map((line) => line.message);
  const select = (query: Record<string, string>) => messages(selectEntries(lines, read(query).options));

  it('are the last tail lines of the log, then those from since to until, both included', () => {
    expect(select({})).toEqual(['at 1000', 'at 2000', 'at 3000', 'at 4000']);
    expect(select({ since: '2', until: '3' })).toEqual(['at 2000', 'at 3000']);
    expect(select({ since: '2', tail: '1' })).toEqual(['at 4000']);
    expect(select({ since: '4', tail: '2' })).toEqual(['at 4000']);
    expect(select({ until: '2', tail: '2' })).toEqual([]);
    expect(select({ tail: '0' })).toEqual([]);
    expect(select({ tail: '10' })).toHaveLength(4);
  });
});

describe('a line of the answer', () => {
  it('is the entry as JSON and a newline, without its time when no timestamps were asked for', () => {
    const entry = { time: '2026-11-21T12:00:01.123456789Z', stream: 'stderr' as const, message: 'a "quoted" café' };
    expect(logLine(entry, true)).toBe('{"time":"2026-11-21T12:00:01.123456789Z","stream":"stderr","message":"a \\"quoted\\" café"}\n');
    expect(logLine(entry, false)).toBe('{"stream":"stderr","message":"a \\"quoted\\" café"}\n');
  });
});
