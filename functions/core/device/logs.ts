/** The output streams of a process. */
export type LogStream = 'stdout' | 'stderr';

/**
 * One line a process printed: when (RFC 3339 in UTC, `2026-11-21T12:00:01.123456789Z`, to the
 * precision of its source: nanoseconds from the container engine), on which stream, and its text
 * without the line end. `GET /api/v1/chutes/<chute>/logs` sends one per line of its answer.
 */
export interface LogEntry {
  time: string;
  stream: LogStream;
  message: string;
}

/**
 * One line of a chute's log: a `LogEntry` and the chute's service whose container printed it (ParaDrop's
 * `service`: the main one of a chute stored without services is `main`).
 */
export interface ChuteLogEntry extends LogEntry {
  service: string;
}

/**
 * A moment as `LogOptions` names one: RFC 3339 in UTC with nine fraction digits,
 * `2026-11-21T12:00:01.123456789Z` (`nanoTime`), so that two compare as strings, to the nanosecond.
 */
export type LogTime = string;

/** Which lines of a chute's log to read, and whether to go on with new ones. */
export interface LogOptions {
  /** After the lines so far, go on with each new one until the chute stops, `until` passes or the reader cancels. */
  follow: boolean;
  /** Only lines printed at this time or later; null: from the start. */
  since: LogTime | null;
  /** Only lines printed at this time or earlier; null: no end. */
  until: LogTime | null;
  /** Only the last `tail` lines of the log (of each service's, for a chute), counted before `since` and `until` apply, as the engine counts them; null: all. */
  tail: number | null;
}

/** The logs of a device's chutes: what their processes print. */
export interface DeviceLogs {
  /**
   * The lines an installed chute (its name validated and known) printed, each labelled with its
   * service, every service's lines interleaved by time (oldest first; `tail` counts in each service's
   * log, as ParaDrop asks each container), as a stream the reader cancels to stop reading: the device
   * stops reading its sources with it. Empty when the chute has no container. Throws an `HttpProblem` 503 when the device has no reachable container
   * engine, 502 when the engine fails.
   *
   * @example
   * const lines = await device.chuteLogs('hello', { follow: false, since: null, until: null, tail: 10 });
   * for await (const line of lines) console.log(line.message);
   */
  chuteLogs(chute: string, options: LogOptions): Promise<ReadableStream<ChuteLogEntry>>;
}
