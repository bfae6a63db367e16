/**
 * Logs as the API serves them, one place for every log (a chute's, `GET /api/v1/chutes/<chute>/logs`,
 * and the daemon's own, `GET /api/v1/logs`): each line a `LogEntry` in newline-delimited JSON, and
 * the query that selects them (`follow`, `since`, `until`, `tail`, `timestamps`, as `docker logs`
 * takes them). See docs/api/logs.md.
 */
import * as z from 'zod/mini';
import type { LogEntry, LogOptions, LogTime } from './device/logs.ts';
import { validateQuery } from './validate.ts';
import { invalidInput } from './violations.ts';

export type { ChuteLogEntry, LogEntry, LogOptions, LogStream, LogTime } from './device/logs.ts';

/** The media type of a log as the API streams it: one JSON document per line. */
export const LOG_MEDIA_TYPE = 'application/x-ndjson';

/** One line of a log as kept: a scenario's `chutes/<chute>/logs` holds one per line. */
export const LogEntrySchema = z.strictObject({
  time: z.iso.datetime(),
  stream: z.enum(['stdout', 'stderr']),
  message: z.string(),
}) satisfies z.ZodMiniType<LogEntry>;

/** One line of a log as the API sends it: a `LogEntry`, without `time` when the query asked for `timestamps=false`. */
export const LogLineSchema = z.strictObject({ ...LogEntrySchema.shape, time: z.optional(z.iso.datetime()) });

/** One line of a chute's log as the API sends it: a `LogLine` and the service that printed it. */
export const ChuteLogLineSchema = z.strictObject({ ...LogLineSchema.shape, service: z.string() });

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
  z.string().check(z.regex(/^(?:true|false|1|0)$/, { error: 'must be true, false, 1 or 0' })),
  z.transform((text) => text === 'true' || text === '1'),
);

/**
 * The query of a log: `follow` (default false), `since` and `until` (times, both included), `tail`
 * (a whole number of lines, counted before `since` and `until` apply, or `all`, the default) and
 * `timestamps` (default true: each line has its `time`).
 */
export const LogQuerySchema = z.object({
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

/** What a request for a log asks for: which lines (`LogOptions`), and whether each carries its `time`. */
export interface LogRequest {
  options: LogOptions;
  timestamps: boolean;
}

/**
 * The query of a request for a log, read; a time ago is counted back from `now` (the device's clock,
 * ms since the epoch).
 *
 * @throws HttpProblem 400 naming a malformed `query.<name>`; 422 naming `query.until` when it is
 *   before `since`, or a time that is no date of the calendar.
 * @example
 * logRequest({ tail: '10', since: '1h' }, Date.UTC(2026, 10, 21, 12))
 * // { options: { follow: false, since: '2026-11-21T11:00:00.000000000Z', until: null, tail: 10 }, timestamps: true }
 */
export function logRequest(query: Record<string, string>, now: number): LogRequest {
  const read = validateQuery(LogQuerySchema, query);
  const moment = (time: QueryTime | undefined) => (time === undefined ? null : 'at' in time ? time.at : nanoTime(new Date(now - time.ago).toISOString()));
  const since = moment(read.since);
  const until = moment(read.until);
  if (since !== null && until !== null && until < since) throw invalidInput('the query', [{ path: 'query.until', message: 'must not be before since' }]);
  return { options: { follow: read.follow, since, until, tail: read.tail }, timestamps: read.timestamps };
}

/**
 * The entries of a log held in memory (oldest first) that `options` selects, before any line to
 * follow: the last `tail` of them, then those within `since` and `until`, as the engine selects.
 *
 * @example
 * selectEntries(entries, { follow: false, since: null, until: null, tail: 1 }) // the last entry
 */
export function selectEntries<E extends LogEntry>(entries: readonly E[], options: Omit<LogOptions, 'follow'>): E[] {
  const last = options.tail === null ? entries : entries.slice(Math.max(entries.length - options.tail, 0));
  return options.since === null && options.until === null ? [...last] : last.filter((entry) => withinTimes(entry, options));
}

/** Whether an entry was written within `since` and `until` (both included). */
export function withinTimes(entry: LogEntry, options: Pick<LogOptions, 'since' | 'until'>): boolean {
  const time = nanoTime(entry.time);
  return (options.since === null || time >= options.since) && (options.until === null || time <= options.until);
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
 * One entry as a line of the answer: its JSON and a newline, with its `service` where it has one
 * (a chute's), without `time` when the request asked for no timestamps.
 *
 * @example
 * logLine({ time: '2026-11-21T12:00:01.5Z', stream: 'stdout', message: 'ready' }, true) // '{"time":"2026-11-21T12:00:01.5Z","stream":"stdout","message":"ready"}\n'
 * logLine({ time: '2026-11-21T12:00:01.5Z', service: 'db', stream: 'stdout', message: 'ready' }, false) // '{"service":"db","stream":"stdout","message":"ready"}\n'
 */
export function logLine(entry: LogEntry & { service?: string }, timestamps: boolean): string {
  const { time, service, stream, message } = entry;
  return `${JSON.stringify({ ...(timestamps ? { time } : {}), ...(service === undefined ? {} : { service }), stream, message })}\n`;
}

/**
 * A stream of the entries given, then its end.
 *
 * @example
 * const lines = entryStream([{ time: '2026-11-21T12:00:00Z', stream: 'stdout', message: 'ready' }]);
 */
export function entryStream<E extends LogEntry>(entries: readonly E[]): ReadableStream<E> {
  return new ReadableStream({
    start(controller) {
      for (const entry of entries) controller.enqueue(entry);
      controller.close();
    },
  });
}

/** Every entry of a stream that ends, in order. */
export async function readEntries<E extends LogEntry>(stream: ReadableStream<E>): Promise<E[]> {
  const entries: E[] = [];
  for await (const entry of stream) entries.push(entry);
  return entries;
}

/**
 * The entries of several logs as one, oldest first: each source's entries in their order, the
 * oldest of their next ones sent first (a source's before a later source's at the same time). It
 * holds one entry of each source, reads on as its reader reads, and cancels every source with it
 * (or when one fails). For logs that end: a source that waits holds the others back.
 *
 * @example
 * mergedByTime([entryStream(webLines), entryStream(dbLines)]) // both, interleaved by time
 */
export function mergedByTime<E extends LogEntry>(sources: readonly ReadableStream<E>[]): ReadableStream<E> {
  const readers = sources.map((source) => source.getReader());
  /** Each source's next entry: undefined while unread, null once the source has ended. */
  const heads: (E | null | undefined)[] = readers.map(() => undefined);
  const cancel = (reason?: unknown) => Promise.all(readers.map((reader) => reader.cancel(reason))).then(() => undefined);
  return new ReadableStream<E>(
    {
      async pull(controller) {
        const reading = readers.map(async (reader, i) => {
          if (heads[i] === undefined) heads[i] = ((result) => (result.done ? null : result.value))(await reader.read());
        });
        await Promise.all(reading).catch(async (error: unknown) => {
          await cancel(error).catch(() => {});
          throw error;
        });
        let oldest = -1;
        for (const [i, head] of heads.entries()) if (head && (oldest < 0 || byLogTime(head, heads[oldest]!) < 0)) oldest = i;
        if (oldest < 0) return controller.close();
        controller.enqueue(heads[oldest]!);
        heads[oldest] = undefined;
      },
      cancel,
    },
    { highWaterMark: 0 },
  );
}

/**
 * The entries of several logs as one, each as it comes: for logs that go on, where no source may
 * wait for another. It ends once every source has ended, and cancels every source with it (or when
 * one fails).
 */
export function entriesAsTheyCome<E>(sources: readonly ReadableStream<E>[]): ReadableStream<E> {
  const readers = sources.map((source) => source.getReader());
  const reads = new Map<number, Promise<[number, Awaited<ReturnType<ReadableStreamDefaultReader<E>['read']>>]>>();
  const arm = (i: number) =>
    reads.set(
      i,
      readers[i]!.read().then((result) => [i, result]),
    );
  const cancel = (reason?: unknown) => Promise.all(readers.map((reader) => reader.cancel(reason))).then(() => undefined);
  return new ReadableStream<E>(
    {
      start() {
        for (const i of readers.keys()) arm(i);
      },
      async pull(controller) {
        while (reads.size > 0) {
          const [i, result] = await Promise.race(reads.values()).catch(async (error: unknown) => {
            await cancel(error).catch(() => {});
            throw error;
          });
          reads.delete(i);
          if (result.done) continue;
          arm(i);
          return controller.enqueue(result.value);
        }
        controller.close();
      },
      cancel,
    },
    { highWaterMark: 0 },
  );
}

/**
 * A stream of `first`'s entries, then of the stream `next` makes once `first` has ended (not before:
 * it may depend on what `first` gave). Cancelling it cancels the one being read.
 */
export function followedBy<E>(first: ReadableStream<E>, next: () => Promise<ReadableStream<E>>): ReadableStream<E> {
  let reader = first.getReader();
  let second = false;
  let cancelled = false;
  return new ReadableStream<E>(
    {
      async pull(controller) {
        for (;;) {
          const result = await reader.read();
          if (cancelled) return;
          if (!result.done) return controller.enqueue(result.value);
          if (second) return controller.close();
          const made = await next();
          second = true;
          reader = made.getReader();
          // Cancelled while `next` was made: its stream is cancelled too.
          if (cancelled) return reader.cancel();
        }
      },
      async cancel(reason) {
        cancelled = true;
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The moment a nanosecond after `time`: where a log read again goes on after its last line.
 *
 * @example
 * nanoAfter('2026-11-21T12:00:01.999999999Z') // '2026-11-21T12:00:02.000000000Z'
 */
export function nanoAfter(time: string): LogTime {
  const at = nanoTime(time);
  const nanos = BigInt(Date.parse(`${at.slice(0, 19)}Z`)) * 1_000_000n + BigInt(at.slice(20, 29)) + 1n;
  const ms = Number(nanos / 1_000_000_000n) * 1000;
  return `${new Date(ms).toISOString().slice(0, 19)}.${String(nanos % 1_000_000_000n).padStart(9, '0')}Z`;
}
