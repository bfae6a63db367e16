// GET /api/v1/events, a device's events as Server-Sent Events: a bundle of its own
// (dist/event-stream.mjs), loaded on the first request, so that the runtime bundle holds only the
// route. See docs/decisions/0045-the-events-stream.md and docs/api/events.md.
import type { Context } from 'hono';
import type { Device, DeviceEvent } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { invalidInput, validateQuery } from '../../functions/core/validate.ts';
import {
  DEVICE_EVENT_KINDS,
  EVENT_ID,
  EVENT_ID_MESSAGE,
  EVENTS_MISSED,
  EventsQuerySchema,
  type EventsMissed,
  type EventsQuery,
} from '../../functions/events/schemas.ts';
import type { CorsPolicy } from './cors.ts';
import { incomingMessage, requestHeaders } from './request-headers.ts';

/** How many clients may follow the events at once unless told otherwise (`--events-clients`). */
export const DEFAULT_EVENT_CLIENTS = 64;

/** How often an open stream sends a comment, so that a proxy does not close it as idle, unless told otherwise. */
export const HEARTBEAT_MS = 15_000;

/** How long a client waits before it reconnects (the stream's `retry:`). */
export const RETRY_MS = 3000;

/** How long a client refused for the client cap is told to wait (`Retry-After`, seconds). */
const RETRY_AFTER_S = 10;

/**
 * How many bytes a stream may hold for a client that does not take them, beyond what its socket took
 * and a reconnect's backlog: a client that falls further behind is dropped.
 */
export const MAX_QUEUED_BYTES = 256 * 1024;

/** What the events stream of one app keeps: the device, the streams open now and the limits. */
export interface EventStreams {
  device: Pick<Device, 'followEvents' | 'now'>;
  /** The streams open now, each by what ends it (the server stops: `listen` calls each). */
  open: Set<() => void>;
  /** At most this many streams at once; default `DEFAULT_EVENT_CLIENTS`. */
  clients?: number;
  cors: Pick<CorsPolicy, 'headers'>;
  /** Default `HEARTBEAT_MS`. */
  heartbeatMs?: number;
}

/** A stream's frames, UTF-8, as every client gets them: each event made once whatever the clients. */
const frames = new WeakMap<DeviceEvent, Uint8Array>();
const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(': keep-alive\n\n');
const RETRY = encoder.encode(`retry: ${RETRY_MS}\n\n`);

/**
 * `GET /api/v1/events`: the device's events as they happen, each an SSE event with `id:`, `event:
 * <kind>` and its JSON as `data:`, after `retry:`; a comment every `heartbeatMs`. A client that sends
 * `Last-Event-ID` (or `?lastEventId=` when it cannot send headers; the header wins) first gets the
 * buffered events after that id, preceded by `events.missed` when some have left the buffer. The
 * query filters the device's events (`EventsQuerySchema`): `kind` (comma-separated or repeated),
 * `chute`, `network`; `events.missed` is always sent. Answered with `Connection: close`: a stream
 * that ends (the server stops: `EventStreams.open`) closes its connection. A HEAD answers the
 * headers and opens nothing.
 *
 * At most `clients` streams are open at once; one more is refused. A client that takes less than it
 * is sent, so that more than `MAX_QUEUED_BYTES` wait for it beyond what its socket and a reconnect's
 * backlog hold, is dropped (its connection closed); the others go on.
 *
 * @throws HttpProblem 400 naming `query.<name>` or `headers.last-event-id` for a malformed value, 422
 *   naming `query.kind` for a kind that does not exist, 503 (with `Retry-After`) when `clients`
 *   streams are open.
 */
export function eventStream(c: Context, streams: EventStreams): Response {
  const query = validateQuery(EventsQuerySchema, { ...c.req.query(), ...kindQuery(c) });
  const wanted = filter(query);
  const after = resumeAfter(c, query);
  const clients = streams.clients ?? DEFAULT_EVENT_CLIENTS;
  if (streams.open.size >= clients) {
    throw new HttpProblem(503, `${clients} clients follow the events already, the most this device serves at once: try again later`, {
      headers: { 'retry-after': String(RETRY_AFTER_S) },
    });
  }
  const headers = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'close',
    // Tells a proxy such as nginx to pass each event on at once.
    'x-accel-buffering': 'no',
    ...streams.cors.headers(requestHeaders(c).origin),
  };
  if (c.req.method === 'HEAD') return new Response(null, { headers });
  return new Response(open(c, streams, wanted, after), { headers });
}

/** The stream of one client: what it missed, then every event `wanted` lets through, until it goes, is dropped or the server stops. */
function open(c: Context, streams: EventStreams, wanted: (event: DeviceEvent) => boolean, after: number | undefined): ReadableStream<Uint8Array> {
  let stop = () => {};
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let limit = MAX_QUEUED_BYTES;
        const send = (bytes: Uint8Array) => {
          controller.enqueue(bytes);
          if (-controller.desiredSize! > limit) drop();
        };
        const following = streams.device.followEvents((event) => {
          if (wanted(event)) send(frameOf(event));
        }, after);
        const heartbeat = setInterval(() => send(HEARTBEAT), streams.heartbeatMs ?? HEARTBEAT_MS);
        heartbeat.unref?.();
        let stopped = false;
        stop = () => {
          if (stopped) return;
          stopped = true;
          following.stop();
          clearInterval(heartbeat);
          streams.open.delete(end);
        };
        /** The server stops: the stream ends, and its connection with it. */
        const end = () => {
          stop();
          controller.close();
        };
        /** Too far behind: its connection is closed (in a process without one, the stream fails). */
        const drop = () => {
          stop();
          const socket = incomingMessage(c)?.socket;
          if (socket === undefined) controller.error(new Error('the client fell too far behind the events and was dropped'));
          else socket.destroy();
        };
        streams.open.add(end);
        controller.enqueue(RETRY);
        if (following.missed) controller.enqueue(missedFrame(after!, (following.backlog[0]?.id ?? 1) - 1, streams.device.now()));
        for (const event of following.backlog) if (wanted(event)) controller.enqueue(frameOf(event));
        // A reconnect's backlog is sent as fast as the socket takes it: only what comes after counts against the limit.
        limit += -controller.desiredSize!;
      },
      cancel: () => stop(),
    },
    { highWaterMark: 0, size: (bytes) => bytes?.byteLength ?? 0 },
  );
}

/** The SSE frame of a device event: its id, its kind as the event's name, and its JSON. */
function frameOf(event: DeviceEvent): Uint8Array {
  let frame = frames.get(event);
  if (frame === undefined) frames.set(event, (frame = encoder.encode(`id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`)));
  return frame;
}

/** The frame of `events.missed`: after `after`, the events up to `id` are lost; what follows comes next. */
function missedFrame(after: number, id: number, now: number): Uint8Array {
  const missed: EventsMissed = { kind: EVENTS_MISSED, after, id, time: new Date(now).toISOString() };
  return encoder.encode(`id: ${id}\nevent: ${EVENTS_MISSED}\ndata: ${JSON.stringify(missed)}\n\n`);
}

/** `?kind=`, repeated or not, as one comma-separated list; nothing when it is not given. */
function kindQuery(c: Context): { kind?: string } {
  const kinds = c.req.queries('kind');
  return kinds === undefined ? {} : { kind: kinds.join(',') };
}

/**
 * Which device events the query lets through: of the kinds asked for, about the chute and the
 * network asked for.
 *
 * @throws HttpProblem 422 naming `query.kind` for a kind that does not exist.
 */
function filter(query: EventsQuery): (event: DeviceEvent) => boolean {
  const kinds = query.kind === undefined ? null : new Set(query.kind.split(','));
  const unknown = [...(kinds ?? [])].filter((kind) => !(DEVICE_EVENT_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0) {
    throw invalidInput('the query', [{ path: 'query.kind', message: `must be one of ${DEVICE_EVENT_KINDS.join(', ')}, not ${unknown.join(', ')}` }]);
  }
  const { chute, network } = query;
  return (event) =>
    (kinds === null || kinds.has(event.kind)) &&
    (chute === undefined || ('chute' in event && event.chute === chute)) &&
    (network === undefined || ('network' in event && event.network === network));
}

/**
 * The id after which the client resumes: its `Last-Event-ID` header (which a browser's EventSource
 * sends when it reconnects), else `?lastEventId=`; undefined for a client that starts afresh.
 *
 * @throws HttpProblem 400 naming `headers.last-event-id` when the header is not a whole number.
 */
function resumeAfter(c: Context, query: EventsQuery): number | undefined {
  const header = requestHeaders(c)['last-event-id'];
  if (header === undefined) return query.lastEventId === undefined ? undefined : Number(query.lastEventId);
  if (!EVENT_ID.test(header)) {
    throw new HttpProblem(400, `bad header: headers.last-event-id ${EVENT_ID_MESSAGE}`, {
      errors: [{ path: 'headers.last-event-id', message: EVENT_ID_MESSAGE }],
    });
  }
  return Number(header);
}
