// ParaDrop's change stream (`/ws/changes/<id>/stream`) without the websocket: what to send, and when
// to close. See docs/decisions/0014-change-stream-websocket.md.
import { setTimeout as delay } from 'node:timers/promises';
import type { ChangeRecord, Device } from '../../functions/core/device/index.ts';

/** How often an open change stream reads its change again, to find new messages and its end. */
export const CHANGE_POLL_MS = 200;

/** Close codes of the change stream (RFC 6455 section 7.4.1). */
export const CHANGE_STREAM_CLOSE = { done: 1000, internalError: 1011 } as const;

/** One message of the stream, as ParaDrop sends it: seconds since the epoch (milliseconds as a fraction) and the text. */
export interface ChangeStreamMessage {
  time: number;
  message: string;
}

/** Where a change stream goes: the websocket, in the runtime. */
export interface ChangeStreamSink {
  /** Sends one text message. */
  send(text: string): void;
  /** Closes the websocket; nothing is sent after it. */
  close(code: number, reason: string): void;
}

export interface ChangeStreamOptions {
  /**
   * Waits before the next read of the change: resolves after `CHANGE_POLL_MS` by default, and at
   * once when `signal` aborts (the websocket closed).
   */
  pause?: (signal: AbortSignal) => Promise<void>;
}

export interface ChangeStream {
  /** Stops following the change (the websocket closed); resolves once no read of it is under way. */
  stop(): Promise<void>;
}

/**
 * Follows change `id` for a websocket: sends each of its messages once, oldest first, as JSON
 * `{"time": 1795262401.5, "message": "running"}` (ParaDrop's change stream), reading the change
 * again every `CHANGE_POLL_MS` for new ones; once the change is `succeeded` or `failed` and every
 * message is sent, closes with 1000. A change that is gone (a factory reset cleared the log, or its bound removed the change) closes
 * with 1000 too, saying so; a change that cannot be read closes with 1011 (logged).
 *
 * @example
 * const stream = followChange(device, 7, { send: (text) => ws.send(text), close: (code, reason) => ws.close(code, reason) });
 * ws.once('close', () => void stream.stop());
 */
export function followChange(device: Pick<Device, 'change' | 'now'>, id: number, sink: ChangeStreamSink, options: ChangeStreamOptions = {}): ChangeStream {
  const pause = options.pause ?? ((signal) => delay(CHANGE_POLL_MS, undefined, { signal }).catch(() => undefined));
  const stopping = new AbortController();
  let sent = 0;

  async function follow(): Promise<void> {
    while (!stopping.signal.aborted) {
      let change: ChangeRecord | null;
      try {
        change = await device.change(id);
      } catch (error) {
        console.error(`change stream ${id}:`, error);
        return close(CHANGE_STREAM_CLOSE.internalError, `change ${id} could not be read`);
      }
      if (stopping.signal.aborted) return;
      if (change === null) return close(CHANGE_STREAM_CLOSE.done, `change ${id} is no longer on record`);
      // Messages are only ever appended: the first `sent` are the ones already sent.
      const messages = Array.isArray(change.messages) ? change.messages : [];
      for (; sent < messages.length; sent++) {
        const message = streamMessage(messages[sent], device.now());
        if (message !== null) sink.send(JSON.stringify(message));
      }
      if (change.state === 'succeeded' || change.state === 'failed') return close(CHANGE_STREAM_CLOSE.done, `change ${id} ${change.state}`);
      await pause(stopping.signal);
    }
  }

  function close(code: number, reason: string): void {
    stopping.abort();
    sink.close(code, reason);
  }

  const following = follow().catch((error: unknown) => {
    console.error(`change stream ${id}:`, error);
    close(CHANGE_STREAM_CLOSE.internalError, `change ${id} could not be streamed`);
  });
  return {
    stop() {
      stopping.abort();
      return following;
    },
  };
}

/**
 * A change record's message as the stream sends it, or null when its text is not a string. A time
 * that cannot be read becomes `now` (ms since the epoch).
 *
 * @example
 * streamMessage({ time: '2026-11-21T12:00:01.500Z', text: 'running' }, Date.now()) // { time: 1795262401.5, message: 'running' }
 */
export function streamMessage(entry: unknown, now: number): ChangeStreamMessage | null {
  const { time, text } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
  if (typeof text !== 'string') return null;
  const ms = typeof time === 'string' ? Date.parse(time) : Number.NaN;
  return { time: (Number.isFinite(ms) ? ms : now) / 1000, message: text };
}
