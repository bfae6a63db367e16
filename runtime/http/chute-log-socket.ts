// ParaDrop's chute log websockets (`/ws/chute_logs/<chute>`, `/sockjs/logs/<chute>`) without the
// websocket: which lines to send, in which shape, and when to close.
import type { ChuteLogEntry, Device } from '../../functions/core/device/index.ts';

/** How many of the lines so far a websocket gets first: ParaDrop's LogProvider asks the engine for the last 200. */
export const PARADROP_LOG_TAIL = 200;

/** Close codes of a chute log websocket (RFC 6455 section 7.4.1). */
export const CHUTE_LOG_CLOSE = { ended: 1000, internalError: 1011 } as const;

/**
 * One message as ParaDrop's LogProvider sends it (paradrop/core/container/log_provider.py), which
 * `pdtools node watch-chute-logs` prints as `[<service>] <timestamp in local time>: <message>`: the
 * chute's service whose container printed the line (`main` for a chute installed without services),
 * the engine's RFC 3339 timestamp, the text.
 */
export interface ParadropLogMessage {
  service: string;
  timestamp: string;
  message: string;
}

/** Where a chute log websocket goes: the websocket, in the runtime. */
export interface ChuteLogSink {
  /** Sends one text message; resolves once it is written, so that a slow client slows the reading. */
  send(text: string): Promise<void>;
  /** Closes the websocket; nothing is sent after it. */
  close(code: number, reason: string): void;
}

export interface ChuteLogSocket {
  /** Stops sending (the websocket closed); resolves once the device's reading has stopped. */
  stop(): Promise<void>;
}

/**
 * Follows chute `chute`'s log for a websocket as ParaDrop's daemon does: the last
 * `PARADROP_LOG_TAIL` lines of each of its services, then each new one, one JSON
 * `ParadropLogMessage` per message. When the
 * log ends (the chute stopped, or did not run) it closes with 1000; when it cannot be read, with 1011
 * (the error logged).
 *
 * @example
 * const socket = followChuteLog(device, 'hello', { send: (text) => sent(ws, text), close: (code, reason) => ws.close(code, reason) });
 * ws.once('close', () => void socket.stop());
 */
export function followChuteLog(device: Pick<Device, 'chuteLogs'>, chute: string, sink: ChuteLogSink): ChuteLogSocket {
  let stopped = false;
  let lines: ReadableStreamDefaultReader<ChuteLogEntry> | undefined;

  async function follow(): Promise<void> {
    const entries = await device.chuteLogs(chute, { follow: true, since: null, until: null, tail: PARADROP_LOG_TAIL });
    lines = entries.getReader();
    try {
      for (let line = await lines.read(); !line.done && !stopped; line = await lines.read()) {
        await sink.send(JSON.stringify(paradropLogMessage(line.value)));
      }
    } finally {
      await lines.cancel();
    }
    if (!stopped) sink.close(CHUTE_LOG_CLOSE.ended, `the log of chute ${chute} ended: the chute does not run`);
  }

  const following = follow().catch((error: unknown) => {
    if (stopped) return;
    console.error(`chute log websocket ${chute}:`, error);
    sink.close(CHUTE_LOG_CLOSE.internalError, `the log of chute ${chute} cannot be read`);
  });
  return {
    async stop() {
      stopped = true;
      await lines?.cancel();
      await following;
    },
  };
}

/**
 * A chute's log line as ParaDrop sends it.
 *
 * @example
 * paradropLogMessage({ time: '2026-11-21T12:00:01.5Z', service: 'db', stream: 'stderr', message: 'oops' }) // { service: 'db', timestamp: '2026-11-21T12:00:01.5Z', message: 'oops' }
 */
export function paradropLogMessage(entry: ChuteLogEntry): ParadropLogMessage {
  return { service: entry.service, timestamp: entry.time, message: entry.message };
}
