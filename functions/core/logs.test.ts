import { describe, expect, it } from 'vitest';
import { entriesAsTheyCome, entryStream, followedBy, logLine, logRequest, mergedByTime, nanoAfter, readEntries, selectEntries } from './logs.ts';
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

describe("the lines of a chute's services as one log", () => {
  const at = (second: number, service: string) => ({
    time: `2026-11-21T12:00:0${second}Z`,
    service,
    stream: 'stdout' as const,
    message: `${service} ${second}`,
  });

  it('interleaves the lines so far by time, a service before a later one at the same time', async () => {
    const web = [at(1, 'web'), at(4, 'web')];
    const db = [at(2, 'db'), at(3, 'db'), at(4, 'db')];
    const merged = await readEntries(mergedByTime([entryStream(web), entryStream(db)]));
    expect(merged.map((line) => line.message)).toEqual(['web 1', 'db 2', 'db 3', 'web 4', 'db 4']);
  });

  it('sends the new lines of each service as they come, ends once every one has ended, and stops reading them all when cancelled', async () => {
    let quietCancelled = false;
    const quiet = new ReadableStream({ cancel: () => void (quietCancelled = true) });
    const lines = entriesAsTheyCome([quiet, entryStream([at(1, 'db')])]).getReader();
    expect((await lines.read()).value).toEqual(at(1, 'db'));
    await lines.cancel();
    expect(quietCancelled).toBe(true);
    expect(await readEntries(entriesAsTheyCome([entryStream([at(1, 'web')]), entryStream([at(2, 'db')])]))).toHaveLength(2);
  });

  it('asks for the lines to follow only once the lines so far have ended, and goes on a nanosecond after the last', async () => {
    const asked: string[] = [];
    const log = followedBy(entryStream([at(1, 'web')]), async () => {
      asked.push('next');
      return entryStream([at(2, 'web')]);
    }).getReader();
    expect((await log.read()).value).toEqual(at(1, 'web'));
    expect(asked).toEqual([]);
    expect((await log.read()).value).toEqual(at(2, 'web'));
    expect((await log.read()).done).toBe(true);
    expect(nanoAfter('2026-11-21T12:00:01.999999999Z')).toBe('2026-11-21T12:00:02.000000000Z');
    expect(nanoAfter('2026-11-21T12:00:01.5Z')).toBe('2026-11-21T12:00:01.500000001Z');
  });
});
