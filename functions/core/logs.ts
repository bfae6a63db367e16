/**
 * Log lines as the API streams them (newline-delimited JSON, one `LogEntry` a line) and the query
 * that selects them: `follow`, `since`, `until`, `tail`, `timestamps`, as `docker logs` takes them.
 * Shared by every log the API serves (the daemon's own, `GET /api/v1/logs`).
 */
import * as z from 'zod/mini';

/** One line of a log: when it was written (ISO 8601), to which stream, and its text without the newline. */
export interface LogEntry {
  time: string;
  stream: 'stdout' | 'stderr';
  message: string;
}

/** A line as the API sends it: a `LogEntry`, without `time` when the query asked for `timestamps=false`. */
export const LogEntrySchema = z.strictObject({
  time: z.optional(z.iso.datetime()),
  stream: z.enum(['stdout', 'stderr']),
  message: z.string(),
});

/** The media type of a log as the API streams it. */
export const LOG_MEDIA_TYPE = 'application/x-ndjson';

/** The most lines `tail` may ask for. */
export const MOST_TAIL_LINES = 1_000_000;

/** `true`, `false`, `1` or `0`, as a boolean; `fallback` when left out. */
const flag = (fallback: boolean) =>
  z._default(
    z.pipe(
      z.enum(['true', 'false', '1', '0'], { error: 'must be true, false, 1 or 0' }),
      z.transform((text) => text === 'true' || text === '1'),
    ),
    fallback,
  );

/** A time in a URL: RFC 3339 (`2026-11-28T10:00:00Z`) or seconds since the epoch (`1795860000.5`). */
const TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})|\d{1,12}(\.\d{1,9})?)$/;

/** A time of the query, as milliseconds since the epoch: malformed text is a 400, a date that does not exist a 422. */
const TimeSchema = z.pipe(
  z.string().check(z.regex(TIME, { error: 'must be an RFC 3339 time such as 2026-11-28T10:00:00Z, or seconds since the epoch' })),
  z.transform((text, payload) => {
    const ms = /T/.test(text) ? Date.parse(text) : Number(text) * 1000;
    if (!Number.isFinite(ms)) payload.issues.push({ code: 'custom', message: 'is not a time that exists', input: text });
    return ms;
  }),
);

/**
 * The query of a log: `follow` (keep the answer open and send each new line; default false),
 * `since` and `until` (only lines written at or after `since` and before `until`; with `follow`, the
 * answer ends at `until`), `tail` (only the last N of those lines, or `all`, the default) and
 * `timestamps` (each line carries its `time`; default true).
 */
export const LogQuerySchema = z
  .object({
    follow: flag(false),
    since: z.optional(TimeSchema),
    until: z.optional(TimeSchema),
    tail: z.optional(
      z.pipe(
        z.string().check(z.regex(/^(\d{1,7}|all)$/, { error: 'must be a whole number of lines or all' })),
        z.transform((text) => (text === 'all' ? undefined : Number(text))),
      ),
    ),
    timestamps: flag(true),
  })
  .check(
    z.superRefine((query, payload) => {
      if (query.tail !== undefined && query.tail > MOST_TAIL_LINES) {
        payload.issues.push({ code: 'custom', path: ['tail'], message: `must be at most ${MOST_TAIL_LINES}`, input: query.tail });
      }
      if (query.since !== undefined && query.until !== undefined && query.until <= query.since) {
        payload.issues.push({ code: 'custom', path: ['until'], message: 'must be after since', input: query.until });
      }
    }),
  );
export type LogQuery = z.output<typeof LogQuerySchema>;

/**
 * The entries of `entries` (oldest first, each with a `ms` time) that `query` selects, before any
 * line to follow: those within `since` and `until`, then the last `tail` of them.
 *
 * @example
 * selectEntries([{ ms: 1, … }, { ms: 2, … }, { ms: 3, … }], { since: 2, tail: 1, … }) // [{ ms: 3, … }]
 */
export function selectEntries<E extends { ms: number }>(entries: readonly E[], query: Pick<LogQuery, 'since' | 'until' | 'tail'>): E[] {
  const within = entries.filter((entry) => (query.since === undefined || entry.ms >= query.since) && (query.until === undefined || entry.ms < query.until));
  return query.tail === undefined ? within : within.slice(Math.max(within.length - query.tail, 0));
}

/**
 * One line of the NDJSON answer, with its newline: the entry, without `time` when `timestamps` is false.
 *
 * @example
 * entryLine({ time: '2026-11-28T10:00:00.000Z', stream: 'stdout', message: 'hello' }, false) // '{"stream":"stdout","message":"hello"}\n'
 */
export function entryLine(entry: LogEntry, timestamps: boolean): string {
  const shown = timestamps ? { time: entry.time, stream: entry.stream, message: entry.message } : { stream: entry.stream, message: entry.message };
  return `${JSON.stringify(shown)}\n`;
}
