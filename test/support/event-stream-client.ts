import { connect, type Socket } from 'node:net';

/*
 * The client of the tests for GET /api/v1/events (Server-Sent Events): a fetch that reads the stream
 * as it comes and parses it as the EventSource standard says (fields, comments, blank-line dispatch),
 * and a raw socket that asks for the stream and reads nothing, a client too slow to keep up.
 */

/** One event as the stream sent it: its `id:` (null without one), its `event:` name and its `data:` decoded as JSON. */
export interface StreamedEvent {
  id: string | null;
  event: string;
  data: Record<string, unknown> & { kind: string };
}

/** An open stream of events, read as it comes. */
export interface EventStreamClient {
  status: number;
  headers: Headers;
  /** Every event so far, in the order they came. */
  readonly events: StreamedEvent[];
  /** The comments so far (the heartbeats), without their colon. */
  readonly comments: string[];
  /** The last `retry:` the stream sent, or null. */
  readonly retry: number | null;
  /** Waits until `count` events have come, and answers them all. */
  atLeast(count: number): Promise<StreamedEvent[]>;
  /** Waits for the first event from index `from` on that `match` takes, and answers it. */
  next(match: (event: StreamedEvent) => boolean, from?: number): Promise<StreamedEvent>;
  /** Closes the stream from the client's side. */
  close(): void;
  /** Resolves when the server ended the stream ('end') or the connection broke ('error'). */
  readonly ended: Promise<'end' | 'error'>;
}

/**
 * Asks for the events stream of the chutebox at `url` (`/api/v1/events` and `query`, e.g.
 * `?kind=chute.state`): an open stream for a 200, else the status and the body's text (a problem).
 *
 * @example
 * const stream = await openEvents(server.url, '?kind=chute.state', { authorization });
 * if (!('events' in stream)) throw new Error(`refused: ${stream.status}`);
 * await stream.next((event) => event.event === 'chute.state');
 */
export async function openEvents(
  url: string,
  query = '',
  headers: Record<string, string> = {},
): Promise<EventStreamClient | { status: number; headers: Headers; text: string }> {
  const res = await fetch(`${url}/api/v1/events${query}`, { headers });
  if (res.status !== 200 || res.body === null) return { status: res.status, headers: res.headers, text: await res.text() };
  return eventsOf(res);
}

/**
 * The events of a 200 answer of GET /api/v1/events, read as they come: over HTTP (`openEvents`) or
 * from an app in this process (`app.request`).
 */
export function eventsOf(res: Response): EventStreamClient {
  const reader = res.body!.getReader();
  const events: StreamedEvent[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const state = { retry: null as number | null, over: false };
  const parse = sseParser(
    (event) => {
      events.push(event);
      for (const wake of waiters) wake();
    },
    (comment) => comments.push(comment),
    (retry) => (state.retry = retry),
  );
  const ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) parse(decoder.decode(chunk.value, { stream: true }));
      return 'end' as const;
    } catch {
      return 'error' as const;
    } finally {
      state.over = true;
      for (const wake of waiters) wake();
    }
  })();
  /** Resolves once `done()` holds; rejects when the stream ends first. */
  const until = (done: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!done() && !state.over) return;
        waiters.delete(check);
        if (done()) resolve();
        else reject(new Error(`the stream ended after ${events.length} events`));
      };
      waiters.add(check);
      check();
    });
  return {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    get retry() {
      return state.retry;
    },
    async atLeast(count) {
      await until(() => events.length >= count);
      return events;
    },
    async next(match, from = 0) {
      await until(() => events.slice(from).some(match));
      return events.slice(from).find(match)!;
    },
    close: () => void reader.cancel().catch(() => undefined),
    ended,
  };
}

/**
 * Text of an event stream in, events out, as the EventSource standard parses it: lines of
 * `field: value` (one space after the colon dropped), `:` a comment, a blank line ending an event.
 */
function sseParser(onEvent: (event: StreamedEvent) => void, onComment: (text: string) => void, onRetry: (ms: number) => void): (text: string) => void {
  let rest = '';
  let fields: { id: string | null; event: string; data: string[] } = { id: null, event: 'message', data: [] };
  return (text) => {
    rest += text;
    const lines = rest.split(/\r\n|\n|\r/);
    rest = lines.pop()!;
    for (const line of lines) {
      if (line === '') {
        if (fields.data.length > 0) onEvent({ id: fields.id, event: fields.event, data: JSON.parse(fields.data.join('\n')) });
        fields = { id: null, event: 'message', data: [] };
        continue;
      }
      const colon = line.indexOf(':');
      if (colon === 0) {
        onComment(line.slice(1).trim());
        continue;
      }
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'id') fields.id = value;
      else if (name === 'event') fields.event = value;
      else if (name === 'data') fields.data.push(value);
      else if (name === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
    }
  };
}

/**
 * A client that asks for the events stream over a plain socket and then reads nothing (its socket
 * paused), as a client on a link too slow to keep up: `read()` then reads everything the server wrote
 * until the connection closes, and answers it.
 */
export function stalledEventsClient(url: string, headers: Record<string, string> = {}): Promise<{ read(): Promise<string>; socket: Socket }> {
  const { hostname, port } = new URL(url);
  const head = [`GET /api/v1/events HTTP/1.1`, `Host: ${hostname}:${port}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), '', ''];
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(head.join('\r\n'));
      socket.pause();
      resolve({
        socket,
        read: () =>
          new Promise((done) => {
            const chunks: Buffer[] = [];
            socket.on('data', (chunk: Buffer) => chunks.push(chunk));
            socket.on('error', () => undefined);
            socket.once('close', () => done(Buffer.concat(chunks).toString('utf8')));
            socket.resume();
          }),
      });
    });
    socket.once('error', reject);
  });
}
