import * as z from 'zod/mini';
import type { LogEntry, LogOptions, LogTime } from '../core/device/index.ts';
import type { FunctionInput } from '../core/handler.ts';
import { validateQuery } from '../core/validate.ts';
import { invalidInput } from '../core/violations.ts';
import { pathParams } from './params.ts';

/*
 * What `GET /api/v1/chutes/<chute>/logs` takes and sends (docs/api/logs.md#chute-logs): the query
 * read into `LogOptions`, and each `LogEntry` as one line of newline-delimited JSON. The route itself
 * is the runtime's (runtime/http/chute-logs.ts): it streams, which a function's whole answer cannot.
 */

/** The media type of the answer: one JSON document per line. */
export const NDJSON = 'application/x-ndjson';

/** One line a chute printed, as a line of the answer and of a scenario's `chutes/<chute>/logs`. */
export const LogEntrySchema = z.strictObject({
  time: z.iso.datetime(),
  stream: z.enum(['stdout', 'stderr']),
  message: z.string(),
}) satisfies z.ZodMiniType<LogEntry>;

/** A time of the query: RFC 3339 (any offset), seconds since the epoch, or a time ago (`10m`); each to the nanosecond at most. */
const LOG_TIME = /^(?:(\d{1,11})(?:\.(\d{1,9}))?|\d{1,6}[smh]|(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d))$/;

/** Milliseconds in a second, a minute and an hour: the units of a time ago. */
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

/** A time of the query as read: a moment, or how many milliseconds before the request. */
type QueryTime = { at: LogTime } | { ago: number };

const CalendarTime = z.iso.datetime({ offset: true });

const LogTimeSchema = z.pipe(
  z
    .string()
    .check(
      z.regex(LOG_TIME, { error: 'must be a time: RFC 3339 (2026-11-21T12:00:00Z), seconds since the epoch (1795262400.5) or a time ago (30s, 10m, 2h)' }),
    ),
  z.transform((text, context): QueryTime => {
    const [, seconds, secondsFraction, date, dateFraction, offset] = LOG_TIME.exec(text)!;
    if (seconds !== undefined) return { at: utcTime(Number(seconds) * 1000, secondsFraction) };
    if (date === undefined) return { ago: Number(text.slice(0, -1)) * UNIT_MS[text.at(-1)!]! };
    if (!CalendarTime.safeParse(text).success) context.issues.push({ code: 'custom', message: 'is not a date of the calendar', input: text });
    return { at: utcTime(Date.parse(`${date}${offset}`), dateFraction) };
  }),
);

const FlagSchema = z.pipe(
  z.string().check(z.regex(/^(?:true|false|1|0)$/, { error: 'must be true or false' })),
  z.transform((text) => text === 'true' || text === '1'),
);

/**
 * The query of `GET /api/v1/chutes/<chute>/logs`: `follow` (default false), `since` and `until`
 * (times, both included), `tail` (a whole number of lines, or `all`, the default) and `timestamps`
 * (default true: each line has its `time`).
 */
export const ChuteLogsQuerySchema = z.object({
  follow: z._default(FlagSchema, false),
  since: z.optional(LogTimeSchema),
  until: z.optional(LogTimeSchema),
  tail: z._default(
    z.pipe(
      z.string().check(z.regex(/^(?:all|[0-9]{1,15})$/, { error: 'must be a whole number of lines, or all' })),
      z.transform((text) => (text === 'all' ? null : Number(text))),
    ),
    null,
  ),
  timestamps: z._default(FlagSchema, true),
});

/** What a request for a chute's logs asks for. */
export interface ChuteLogsRequest {
  chute: string;
  options: LogOptions;
  /** Whether each line carries its `time`. */
  timestamps: boolean;
}

/**
 * A request for a chute's logs, read: its chute and query, a time ago counted back from `now` (the
 * device's clock, ms since the epoch).
 *
 * @throws HttpProblem 400 naming `params.chute` or a malformed `query.<name>`; 422 naming
 *   `query.until` when it is before `since`, or a time that is no date of the calendar.
 * @example
 * chuteLogsRequest({ params: { chute: 'hello' }, query: { tail: '10', since: '1h' } }, Date.UTC(2026, 10, 21, 12))
 * // { chute: 'hello', options: { follow: false, since: '2026-11-21T11:00:00.000000000Z', until: null, tail: 10 }, timestamps: true }
 */
export function chuteLogsRequest(input: Pick<FunctionInput, 'params' | 'query'>, now: number): ChuteLogsRequest {
  const { chute } = pathParams(input as FunctionInput, ['chute']);
  const query = validateQuery(ChuteLogsQuerySchema, input.query);
  const moment = (time: QueryTime | undefined) => (time === undefined ? null : 'at' in time ? time.at : nanoTime(new Date(now - time.ago).toISOString()));
  const since = moment(query.since);
  const until = moment(query.until);
  if (since !== null && until !== null && until < since) throw invalidInput('the query', [{ path: 'query.until', message: 'must not be before since' }]);
  return { chute, options: { follow: query.follow, since, until, tail: query.tail }, timestamps: query.timestamps };
}

/**
 * A time in UTC written as `LogTime`: its fraction, as many digits as it has, cut or filled with
 * zeros to nine.
 *
 * @example
 * nanoTime('2026-11-21T12:00:01.5Z') // '2026-11-21T12:00:01.500000000Z'
 * nanoTime('2026-11-21T12:00:01Z')   // '2026-11-21T12:00:01.000000000Z'
 */
export function nanoTime(time: string): LogTime {
  return `${time.slice(0, 19)}.${(time.slice(20, -1) || '').padEnd(9, '0').slice(0, 9)}Z`;
}

/** Orders log lines by their times, to the nanosecond (`Array.prototype.sort` keeps lines of the same time as they were). */
export function byLogTime(a: LogEntry, b: LogEntry): number {
  const [x, y] = [nanoTime(a.time), nanoTime(b.time)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A whole second (ms since the epoch, its own fraction dropped) and the fraction written after it, as a `LogTime`. */
function utcTime(ms: number, fraction = ''): LogTime {
  return nanoTime(`${new Date(ms).toISOString().slice(0, 19)}.${fraction}Z`);
}

/**
 * One entry as a line of the answer: its JSON and a newline, without `time` when the request asked
 * for no timestamps.
 *
 * @example
 * logLine({ time: '2026-11-21T12:00:01.5Z', stream: 'stdout', message: 'ready' }, true) // '{"time":"2026-11-21T12:00:01.5Z","stream":"stdout","message":"ready"}\n'
 * logLine({ time: '2026-11-21T12:00:01.5Z', stream: 'stdout', message: 'ready' }, false) // '{"stream":"stdout","message":"ready"}\n'
 */
export function logLine(entry: LogEntry, timestamps: boolean): string {
  const { time, stream, message } = entry;
  return `${JSON.stringify(timestamps ? { time, stream, message } : { stream, message })}\n`;
}

/**
 * A stream of the entries given, then its end.
 *
 * @example
 * const lines = entryStream([{ time: '2026-11-21T12:00:00Z', stream: 'stdout', message: 'ready' }]);
 */
export function entryStream(entries: readonly LogEntry[]): ReadableStream<LogEntry> {
  return new ReadableStream({
    start(controller) {
      for (const entry of entries) controller.enqueue(entry);
      controller.close();
    },
  });
}

/** Every entry of a stream that ends, in order. */
export async function readEntries(stream: ReadableStream<LogEntry>): Promise<LogEntry[]> {
  const entries: LogEntry[] = [];
  for await (const entry of stream) entries.push(entry);
  return entries;
}
