// GET /api/v1/logs: the daemon's own log, from its ring (runtime/log/). A bundle of its own
// (dist/daemon-logs.mjs), loaded on the first request. See docs/decisions/0048-structured-logs-and-the-ring.md.
import type { Context } from 'hono';
import { entryLine, LOG_MEDIA_TYPE, type LogQuery, LogQuerySchema, selectEntries } from '../../functions/core/logs.ts';
import { validateQuery } from '../../functions/core/validate.ts';
import { checkRoomToFollow, type LogLines, MAX_UNREAD_BYTES, type RingEntry } from '../log/ring.ts';

/**
 * The lines of the daemon's log the query selects (`LogQuerySchema`: `since`, `until`, `tail`,
 * `timestamps`), as newline-delimited JSON `{time, stream, message}`, oldest first; with `follow`,
 * the answer stays open and sends each new line, until `until`, the client goes, or the log ends
 * (the server stops). A follower that leaves more than `MAX_UNREAD_BYTES` unread is dropped.
 *
 * @throws HttpProblem 400 or 422 naming `query.<name>`; 503 when too many clients follow the log.
 */
export async function daemonLogs(c: Context, logs: LogLines, cors: Readonly<Record<string, string>>): Promise<Response> {
  const query = validateQuery(LogQuerySchema, c.req.query());
  const lines = selectEntries(logs.lines(), query);
  const headers = { ...cors, 'content-type': LOG_MEDIA_TYPE, 'cache-control': 'no-store' };
  const ended = query.until !== undefined && query.until <= Date.now();
  if (!query.follow || ended) return new Response(lines.map((entry) => entryLine(entry, query.timestamps)).join(''), { headers });
  checkRoomToFollow(logs);
  // The connection ends with the answer: a server that stops ends it, and need not wait for the client to close the connection.
  return new Response(following(logs, lines, query), { headers: { ...headers, connection: 'close' } });
}

/** The stream of a follower: `lines`, then each new line of `logs`, until `query.until`, a cancel or the log's end. */
function following(logs: LogLines, lines: readonly RingEntry[], query: LogQuery): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let stop = (): void => undefined;
  let open = true;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const send = (entry: RingEntry) => controller.enqueue(encoder.encode(entryLine(entry, query.timestamps)));
        const end = () => {
          stop();
          if (open) controller.close();
          open = false;
        };
        const unfollow = logs.follow((entry) => {
          if (query.until !== undefined && entry.ms >= query.until) return end();
          // A client this far behind is dropped: its answer ends, and it may ask again with `since`.
          if ((controller.desiredSize ?? 0) < -MAX_UNREAD_BYTES) return end();
          send(entry);
        }, end);
        const timer = query.until === undefined ? undefined : setTimeout(end, query.until - Date.now());
        stop = () => {
          unfollow();
          clearTimeout(timer);
        };
        for (const entry of lines) send(entry);
      },
      cancel: () => {
        open = false;
        stop();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );
}
