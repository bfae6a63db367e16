import type { WebSocket } from 'ws';
import type { HttpEffect } from './rule.ts';

/*
 * What a fault rule does to a body or a stream once the real answer is made: a body sent slowly or
 * cut short, a stream (the events, a websocket) dropped, closed or stalled after a time or a number
 * of messages. Runtime-neutral but for `drop`, which the transport gives (emulator/faults/fetch.ts).
 */

export type BodyEffect = Extract<HttpEffect, { kind: 'fault' }>;
export type StreamEffect = Extract<HttpEffect, { kind: 'stream' }>;

/** How a transport breaks a body's connection mid-way: Node ends its socket, elsewhere the body fails. */
export type Drop = (controller: ReadableStreamDefaultController<Uint8Array>) => void;

/** What a pull answers once its stream is over for good: it is never asked again. */
const NEVER = new Promise<void>(() => undefined);

/**
 * The answer with its body sent in `effect.chunks` pieces over `effect.durationMs` (`slow-body`), or
 * half of it and then its connection broken (`truncated-body`), its `Content-Length` the whole body's.
 * An answer without a body is left as it is.
 */
export async function faultedBody(response: Response, effect: BodyEffect, sleep: (ms: number) => Promise<void>, drop: Drop): Promise<Response> {
  if (response.body === null) return response;
  const bytes = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  headers.set('content-length', String(bytes.length));
  const init = { status: response.status, statusText: response.statusText, headers };
  if (effect.fault === 'truncated-body') {
    let sent = false;
    const cut = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (sent) {
            drop(controller);
            return NEVER;
          }
          sent = true;
          controller.enqueue(bytes.subarray(0, Math.floor(bytes.length / 2)));
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(cut, init);
  }
  const pieces = Math.max(1, Math.min(effect.chunks, bytes.length));
  let piece = 0;
  const slow = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        await sleep(effect.durationMs / pieces);
        controller.enqueue(bytes.subarray(Math.round((bytes.length * piece) / pieces), Math.round((bytes.length * (piece + 1)) / pieces)));
        if (++piece === pieces) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(slow, init);
}

/**
 * A streamed body that stops after `effect.afterMs` or `effect.afterMessages` messages (an SSE event;
 * a comment such as a heartbeat and `retry:` are no messages; any other chunk is one): `close` ends it,
 * `drop` breaks its connection, `stall-heartbeat` sends nothing more, heartbeats included, while it
 * stays open. What follows a message is done when the reader asks for more, once the message is on
 * its way.
 */
export function faultedStream(body: ReadableStream<Uint8Array>, effect: StreamEffect, drop: Drop): ReadableStream<Uint8Array> {
  const source = body.getReader();
  /** `due`: to close or drop at the next pull; `over`: closed or dropped. */
  let state: 'open' | 'due' | 'stalled' | 'over' = 'open';
  let sent = 0;
  let pulling = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let out: ReadableStreamDefaultController<Uint8Array>;
  const trip = () => {
    if (effect.stream === 'stall-heartbeat') state = 'stalled';
    else if (state === 'open') state = 'due';
  };
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    state = 'over';
    clearTimeout(timer);
    void source.cancel().catch(() => undefined);
    if (effect.stream === 'close') return controller.close();
    drop(controller);
    return NEVER;
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        out = controller;
        if (effect.afterMessages === 0) trip();
        if (effect.afterMs !== undefined) {
          timer = setTimeout(() => {
            trip();
            // A pull waits for the source: everything sent is on its way, so it ends now.
            if (state === 'due' && pulling) void finish(out);
          }, effect.afterMs);
        }
      },
      async pull(controller) {
        if (state === 'due') return finish(controller);
        pulling = true;
        try {
          for (;;) {
            const { done, value } = await source.read();
            if (state === 'over') return NEVER;
            if (done) return controller.close();
            if (state === 'stalled') continue;
            controller.enqueue(value);
            if (isMessage(value) && ++sent >= (effect.afterMessages ?? Number.POSITIVE_INFINITY)) trip();
            return;
          }
        } finally {
          pulling = false;
        }
      },
      cancel(reason) {
        state = 'over';
        clearTimeout(timer);
        return source.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The close code of a websocket a `close` rule ends: the device going away, as when it restarts. */
const GOING_AWAY = 1001;

/**
 * Makes a websocket the answer opened stop after `effect.afterMs` or `effect.afterMessages` messages
 * sent: `close` closes it (1001, naming the rule), `drop` breaks its connection without a closing
 * handshake, `stall-heartbeat` sends nothing more and answers no ping while it stays open. Once
 * tripped, what the route sends or closes itself goes nowhere: the rule decides how it ends.
 */
export function faultedWebsocket(ws: WebSocket, effect: StreamEffect, rule: string): void {
  let sent = 0;
  let tripped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = ws.send.bind(ws) as (data: unknown, options: object, callback: (error?: Error) => void) => void;
  const close = ws.close.bind(ws);
  const trip = () => {
    tripped = true;
    // ws answers a ping by calling pong(): a stalled websocket answers none.
    if (effect.stream === 'stall-heartbeat') ws.pong = () => undefined;
  };
  const act = () => {
    clearTimeout(timer);
    if (effect.stream === 'close') close(GOING_AWAY, `closed by fault rule ${rule}`);
    else if (effect.stream === 'drop') ws.terminate();
  };
  ws.send = ((data: unknown, options?: object | ((error?: Error) => void), callback?: (error?: Error) => void) => {
    const done = typeof options === 'function' ? options : callback;
    if (tripped) {
      if (done !== undefined) queueMicrotask(() => done());
      return;
    }
    const last = ++sent >= (effect.afterMessages ?? Number.POSITIVE_INFINITY);
    if (last) trip();
    send(data, typeof options === 'object' ? options : {}, (error) => {
      done?.(error);
      if (last) act();
    });
  }) as WebSocket['send'];
  ws.close = ((code?: number, reason?: string | Buffer) => {
    if (!tripped) close(code, reason);
  }) as WebSocket['close'];
  if (effect.afterMs !== undefined) {
    timer = setTimeout(() => {
      trip();
      act();
    }, effect.afterMs);
  }
  ws.once('close', () => clearTimeout(timer));
  if (effect.afterMessages === 0) {
    trip();
    act();
  }
}

const COLON = 0x3a;
const RETRY = new TextEncoder().encode('retry:');

/** Whether a chunk of a stream is a message: anything but an SSE comment (`: keep-alive`) or `retry:` field. */
function isMessage(chunk: Uint8Array): boolean {
  if (chunk[0] === COLON) return false;
  return !(chunk.length >= RETRY.length && RETRY.every((byte, i) => chunk[i] === byte));
}
