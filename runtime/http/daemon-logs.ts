// GET /api/v1/logs: the daemon's own log, from its ring (runtime/log/). A bundle of its own
// (dist/daemon-logs.mjs), loaded on the first request. See docs/decisions/0048-structured-logs-and-the-ring.md.
import type { Context } from 'hono';
import { LOG_MEDIA_TYPE, type LogRequest, logLine, logRequest, nanoTime, selectEntries } from '../../functions/core/logs.ts';
import { checkRoomToFollow, type LogLines, MAX_UNREAD_BYTES, type RingEntry } from '../log/ring.ts';

/**
 * The lines of the daemon's log the query selects (`logRequest`: `tail`, `since`, `until`,
 * `timestamps`, as every log takes them), as newline-delimited JSON `{time, stream, message}`, oldest first; with `follow`,
 * the answer stays open and sends each new line, until `until`, the client goes, or the log ends
 * (the server stops). A follower that leaves more than `MAX_UNREAD_BYTES` unread is dropped.
 *
 * @throws HttpProblem 400 or 422 naming `query.<name>`; 503 when too many clients follow the log.
 */
export async function daemonLogs(c: Context, logs: LogLines, cors: Readonly<Record<string, string>>): Promise<Response> {
  const request = logRequest(c.req.query(), Date.now());
  const { options, timestamps } = request;
  const lines = selectEntries(logs.lines(), options);
  const headers = { ...cors, 'content-type': LOG_MEDIA_TYPE, 'cache-control': 'no-store' };
  const ended = options.until !== null && options.until < nanoTime(new Date().toISOString());
  if (!options.follow || ended) return new Response(lines.map((entry) => logLine(entry, timestamps)).join(''), { headers });
  checkRoomToFollow(logs);
  // The connection ends with the answer: a server that stops ends it, and need not wait for the client to close the connection.
  return new Response(following(logs, lines, request), { headers: { ...headers, connection: 'close' } });
}

/** The stream of a follower: `lines`, then each new line of `logs`, until `until` has passed, a cancel or the log's end. */
function following(logs: LogLines, lines: readonly RingEntry[], { options, timestamps }: LogRequest): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let stop = (): void => undefined;
  let open = true;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const send = (entry: RingEntry) => controller.enqueue(encoder.encode(logLine(entry, timestamps)));
        const end = () => {
          stop();
          if (open) controller.close();
          open = false;
        };
        const unfollow = logs.follow((entry) => {
          if (options.until !== null && nanoTime(entry.time) > options.until) return end();
          // A client this far behind is dropped: its answer ends, and it may ask again with `since`.
          if ((controller.desiredSize ?? 0) < -MAX_UNREAD_BYTES) return end();
          send(entry);
        }, end);
        // `until` is included: the answer ends once the first millisecond after it has begun.
        const timer = options.until === null ? undefined : setTimeout(end, Date.parse(options.until) + 1 - Date.now());
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
