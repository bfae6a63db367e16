import Docker from 'dockerode';
import { CHUTE_LABEL } from '../../functions/core/device/index.ts';
import { isUnixSocket } from './socket.ts';

/*
 * The engine's event stream (`GET /events`) for the chute containers, part of the engine bundle
 * (dist/chute-lifecycle.mjs) beside the other engine calls: the event sources of serve
 * (runtime/events/sources/) load it through the host's engine client.
 */

/** One event of a chute's container, as the engine reports it. */
export interface ChuteContainerEvent {
  /** The chute, from the container's `io.chutebox.chute` label. */
  chute: string;
  /** The engine's action: `start`, `die`, `kill`, … (one of `CHUTE_CONTAINER_ACTIONS`). */
  action: string;
  /** The container's id. */
  id: string;
  /** Its exit code, for `die`; null otherwise. */
  exitCode: number | null;
}

/** What follows the events. */
export interface ChuteContainerEventHandlers {
  /** Each event of a chute container, in the engine's order. */
  onEvent(event: ChuteContainerEvent): void;
  /**
   * The stream is open (at first, and again after the engine went away): events come from now on,
   * and what happened while it was closed is for the caller to read from the engine.
   */
  onConnected(): void;
  /** The stream could not be opened (no engine), or it ended: it is opened again after a wait. */
  onClosed?(): void;
}

/** A stream of events that reconnects until stopped. */
export interface FollowedEvents {
  /** Closes the stream and stops reconnecting; resolves once nothing of it runs. */
  stop(): Promise<void>;
}

/** The container actions that can change a chute's state, and `kill`, which says that a stop was asked. */
export const CHUTE_CONTAINER_ACTIONS = ['start', 'restart', 'kill', 'die', 'pause', 'unpause', 'destroy'] as const;

/** The first wait before connecting again, doubled after each failure up to `MAX_RETRY_MS`. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;
/** How long the engine may take to open the stream: one that accepts the connection and never answers counts as gone. */
const OPEN_DEADLINE_MS = 5000;
/** The longest event line kept: a longer one (no real event is) is dropped with the rest of its line. */
const MAX_LINE_CHARS = 64 * 1024;

/**
 * Follows the engine's events of the containers labelled `io.chutebox.chute` (`CHUTE_CONTAINER_ACTIONS`
 * only), from `GET /events` on the engine at `socketPath`. When there is no engine, or its stream
 * ends (the engine stopped or restarted), it connects again after a wait that starts at 500 ms and
 * doubles up to 30 s, and is back to 500 ms once a stream opened. An engine that accepts the
 * connection but does not open the stream within 5 s (`retry.openMs`) counts as gone: a hung engine
 * holds up nothing that waits for the first look (serve's start).
 *
 * @example
 * const events = followChuteContainerEvents('/var/run/docker.sock', { onEvent: console.log, onConnected: () => resync() });
 * await events.stop();
 */
export function followChuteContainerEvents(
  socketPath: string,
  handlers: ChuteContainerEventHandlers,
  retry: { firstMs: number; maxMs: number; openMs?: number } = { firstMs: FIRST_RETRY_MS, maxMs: MAX_RETRY_MS },
): FollowedEvents {
  let stopped = false;
  let delay = retry.firstMs;
  let timer: NodeJS.Timeout | undefined;
  let abort: AbortController | undefined;
  let running: Promise<void> = Promise.resolve();

  /** Opens the stream and reads it until it ends; resolves then, or at once when there is no engine. */
  async function connect(): Promise<void> {
    abort = new AbortController();
    try {
      if (await isUnixSocket(socketPath)) await follow(abort.signal);
    } catch {
      // No engine, or it went away: connect again below.
    }
    if (!stopped) handlers.onClosed?.();
  }

  async function follow(signal: AbortSignal): Promise<void> {
    // dockerode passes abortSignal through to the request; its typings only lack the field.
    const opening = new AbortController();
    const late = setTimeout(() => opening.abort(new Error('the engine did not open its event stream in time')), retry.openMs ?? OPEN_DEADLINE_MS);
    const abortSignal = AbortSignal.any([signal, opening.signal]);
    const options = { filters: { type: ['container' as const], label: [CHUTE_LABEL], event: [...CHUTE_CONTAINER_ACTIONS] }, abortSignal };
    const stream = (await new Docker({ socketPath }).getEvents(options).finally(() => clearTimeout(late))) as NodeJS.ReadableStream & { destroy(): void };
    if (stopped) return stream.destroy();
    delay = retry.firstMs;
    handlers.onConnected();
    await readEvents(stream, signal, handlers.onEvent);
  }

  function loop(): void {
    timer = undefined;
    running = connect().then(() => {
      if (stopped) return;
      timer = setTimeout(loop, delay);
      delay = Math.min(delay * 2, retry.maxMs);
    });
  }
  loop();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      abort?.abort();
      await running;
    },
  };
}

/** Reads the stream's JSON lines into events until it ends or `signal` aborts. */
function readEvents(stream: NodeJS.ReadableStream & { destroy(): void }, signal: AbortSignal, onEvent: (event: ChuteContainerEvent) => void): Promise<void> {
  return new Promise((resolve) => {
    let pending = '';
    let dropping = false;
    const end = () => {
      signal.removeEventListener('abort', end);
      stream.destroy();
      resolve();
    };
    signal.addEventListener('abort', end);
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', end);
    stream.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (!dropping) {
          const event = chuteContainerEvent(line);
          if (event !== null) onEvent(event);
        }
        dropping = false;
      }
      if (pending.length > MAX_LINE_CHARS) {
        pending = '';
        dropping = true;
      }
    });
  });
}

/**
 * A chute container's event from one line of the engine's stream, or null for anything else.
 *
 * @example
 * chuteContainerEvent('{"Type":"container","Action":"die","Actor":{"ID":"5f1c…","Attributes":{"io.chutebox.chute":"hello","exitCode":"143"}}}')
 * // { chute: 'hello', action: 'die', id: '5f1c…', exitCode: 143 }
 */
export function chuteContainerEvent(line: string): ChuteContainerEvent | null {
  let event: { Type?: unknown; Action?: unknown; Actor?: { ID?: unknown; Attributes?: Record<string, unknown> } };
  try {
    event = JSON.parse(line);
  } catch {
    return null;
  }
  const chute = event?.Actor?.Attributes?.[CHUTE_LABEL];
  const { Action: action, Actor: actor } = event ?? {};
  if (event?.Type !== 'container' || typeof chute !== 'string' || typeof action !== 'string' || typeof actor?.ID !== 'string') return null;
  const exitCode = actor.Attributes?.exitCode;
  return { chute, action, id: actor.ID, exitCode: typeof exitCode === 'string' && /^-?\d+$/.test(exitCode) ? Number(exitCode) : null };
}
