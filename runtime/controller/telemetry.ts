import type { Device, TelemetryStatus } from '../../functions/core/device/index.ts';
import { handle as telemetryHandle } from '../../functions/info/telemetry.get.ts';
import type { Telemetry } from '../../functions/info/schemas.ts';

/** Reports kept for delivery unless told otherwise; when full, the oldest is dropped. */
export const DEFAULT_QUEUE_SIZE = 100;

/** The first retry after a failed delivery waits this long; each further one twice as long. */
export const FIRST_RETRY_MS = 5_000;

/** Retries never wait longer than this, nor longer than the interval. */
export const MAX_RETRY_MS = 5 * 60_000;

/** The longest interval a timer can wait (setTimeout's limit, about 24.8 days), in seconds. */
const MAX_INTERVAL_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/**
 * The report `GET /api/v1/info/telemetry` serves, made by that endpoint's own handler: the one report
 * builder, so the controller gets exactly what the API shows. The handler is given a view of the
 * device of the report's own (the same methods): what it keeps of the texts it parsed (`reusingLast`,
 * by owner) goes with the report, as those texts change before the next report, an interval later.
 *
 * @example
 * const sender = telemetrySender({ report: () => telemetryReport(device), deliver, … });
 */
export function telemetryReport(device: Device): Promise<Telemetry> {
  return telemetryHandle({ params: {}, query: {}, headers: {}, body: undefined, text: '' }, { ...device });
}

export interface TelemetrySenderOptions {
  /** Makes one report, e.g. `() => telemetryReport(device)`. */
  report: () => Promise<unknown>;
  /**
   * Delivers one report; rejects when it was not delivered (the error's message becomes `lastError`).
   * `signal` aborts it when sending stops.
   */
  deliver: (report: unknown, signal: AbortSignal) => Promise<void>;
  /** Reports kept for delivery (default `DEFAULT_QUEUE_SIZE`); at least 1. */
  queueSize?: number;
  /** The clock of `lastSuccess` and `lastError`, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /** Told after each delivery attempt why it failed, or null when it worked (not when it was aborted by a stop). */
  onAttempt?: (error: string | null) => void;
  /** The timers of the interval and the retries (default the real ones, which keep no process alive); the emulator's run in emulated time. */
  timers?: Timers;
  /** What an earlier sender of the device had counted (a restored state): the counts go on from there. Default none. */
  counts?: SenderCounts;
}

/** Timers as `setTimeout` and `clearTimeout` give them, for a sender whose time is not the real one. */
export interface Timers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

/** The real timers, each unreferenced: telemetry never holds up a stopping runtime. */
const REAL_TIMERS: Timers = {
  setTimeout: (run, ms) => unref(setTimeout(run, ms)),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

/** What the sender knows besides whether it runs and how often: the rest of `TelemetryStatus`. */
export type SenderStatus = Pick<TelemetryStatus, 'lastSuccess' | 'lastError' | 'queued' | 'dropped' | 'delivered' | 'failed'>;

/** What a sender has counted, without its queue: what a device keeps of its telemetry across a restore. */
export type SenderCounts = Omit<SenderStatus, 'queued'>;

export interface TelemetrySender {
  /**
   * Sends a report every `interval` seconds from now on (clamped to 1 s … about 24 days). Starting a
   * running sender with the same interval changes nothing; with another one, the next report comes
   * one new interval from now.
   */
  start(interval: number): void;
  /**
   * Stops at once: no timer is left, a delivery in flight is aborted (and not counted), the reports
   * still queued are discarded. `lastSuccess`, `lastError` and the counts are kept.
   */
  stop(): void;
  /** Stops, and forgets `lastSuccess`, `lastError` and the counts too (a factory reset). */
  reset(): void;
  /**
   * Makes one report now, outside the schedule, and delivers the queue as a scheduled report does
   * (a retry waiting is not waited for), counted as one; the schedule stays as it is. Resolves once the
   * queue is delivered (true) or a delivery failed or the report could not be made (false, `lastError`
   * says why), or when the sender stops meanwhile (false).
   */
  sendNow(): Promise<boolean>;
  status(): SenderStatus;
  /** Whether it is started. */
  running(): boolean;
}

interface Queued {
  report: unknown;
}

/**
 * Sends telemetry reports with timers only (`setTimeout`, so fake timers drive it): every interval a
 * report is made and queued, then the queue is delivered oldest first, one at a time. A failed
 * delivery is retried after 5 s, then 10 s, 20 s, … at most the interval and at most 5 min; a retry
 * sends the queued reports again and makes no new one, and reports made meanwhile wait behind them.
 * A delivery resets the wait to 5 s. The queue holds `queueSize` reports: a new report into a full
 * queue drops the oldest, and `dropped` counts it; `delivered` and `failed` count the attempts.
 *
 * @example
 * const sender = telemetrySender({ report: () => telemetryReport(device), deliver: (report, signal) => client.sendReport(credentials, report, signal) });
 * sender.start(60);
 */
export function telemetrySender(options: TelemetrySenderOptions): TelemetrySender {
  const queueSize = Math.max(1, Math.floor(options.queueSize ?? DEFAULT_QUEUE_SIZE));
  const now = options.now ?? Date.now;
  const iso = () => new Date(now()).toISOString();
  const timers = options.timers ?? REAL_TIMERS;

  let intervalMs: number | null = null;
  let queue: Queued[] = [];
  let { dropped, delivered, failed, lastSuccess, lastError } = options.counts ?? NO_COUNTS;
  let retryMs = FIRST_RETRY_MS;
  let tickTimer: unknown = null;
  let retryTimer: unknown = null;
  let inFlight: AbortController | null = null;
  /** The delivery of the queue under way, answering whether it emptied the queue. */
  let flushing: Promise<boolean> | null = null;
  /** Increases at every stop: work begun before it sees the change and leaves everything alone. */
  let generation = 0;

  const maxRetryMs = () => Math.min(MAX_RETRY_MS, intervalMs ?? MAX_RETRY_MS);
  const firstRetryMs = () => Math.min(FIRST_RETRY_MS, maxRetryMs());

  function schedule(): void {
    if (tickTimer !== null) timers.clearTimeout(tickTimer);
    tickTimer = timers.setTimeout(tick, intervalMs!);
  }

  function tick(): void {
    schedule();
    void queueReport();
  }

  /** Makes a report and queues it (the oldest dropped when full), then delivers the queue; false when the report could not be made. */
  async function queueReport(): Promise<boolean> {
    const started = generation;
    let report: unknown;
    try {
      report = await options.report();
    } catch (error) {
      if (started === generation) lastError = { time: iso(), message: `the report could not be made: ${messageOf(error)}` };
      return false;
    }
    if (started !== generation) return false;
    if (queue.length >= queueSize) {
      queue.shift();
      dropped += 1;
    }
    queue.push({ report });
    return (await flush()) && started === generation;
  }

  /**
   * Delivers the queue, oldest first, unless a retry is waiting; resolves whether it emptied it. While
   * a delivery runs, it waits for that one and then delivers what is left.
   */
  function flush(): Promise<boolean> {
    if (retryTimer !== null) return Promise.resolve(false);
    if (flushing !== null) return flushing.then(flush);
    const run = deliverQueue(generation).finally(() => {
      if (flushing === run) flushing = null;
    });
    flushing = run;
    return run;
  }

  async function deliverQueue(started: number): Promise<boolean> {
    while (queue.length > 0) {
      const entry = queue[0]!;
      const abort = (inFlight = new AbortController());
      try {
        await options.deliver(entry.report, abort.signal);
      } catch (error) {
        if (started !== generation) return false;
        lastError = { time: iso(), message: messageOf(error) };
        failed += 1;
        options.onAttempt?.(lastError.message);
        const wait = retryMs;
        retryMs = Math.min(retryMs * 2, maxRetryMs());
        retryTimer = timers.setTimeout(() => {
          retryTimer = null;
          void flush();
        }, wait);
        return false;
      } finally {
        if (inFlight === abort) inFlight = null;
      }
      if (started !== generation) return false;
      // The entry may have been dropped meanwhile (a full queue): remove it only if still there.
      const at = queue.indexOf(entry);
      if (at >= 0) queue.splice(at, 1);
      lastSuccess = iso();
      lastError = null;
      delivered += 1;
      retryMs = firstRetryMs();
      options.onAttempt?.(null);
    }
    return true;
  }

  function stop(): void {
    generation += 1;
    intervalMs = null;
    for (const timer of [tickTimer, retryTimer]) if (timer !== null) timers.clearTimeout(timer);
    tickTimer = retryTimer = null;
    inFlight?.abort(new Error('telemetry was stopped'));
    inFlight = null;
    flushing = null;
    queue = [];
    retryMs = FIRST_RETRY_MS;
  }

  return {
    start(interval) {
      const seconds = Number.isFinite(interval) ? Math.min(Math.max(interval, 1), MAX_INTERVAL_SECONDS) : 60;
      const ms = Math.round(seconds * 1000);
      if (intervalMs === ms) return;
      intervalMs = ms;
      if (retryTimer === null) retryMs = firstRetryMs();
      schedule();
    },
    stop,
    reset() {
      stop();
      ({ dropped, delivered, failed, lastSuccess, lastError } = NO_COUNTS);
    },
    async sendNow() {
      // Delivered now: a retry waiting would deliver the same queue later.
      if (retryTimer !== null) timers.clearTimeout(retryTimer);
      retryTimer = null;
      return queueReport();
    },
    status() {
      return { lastSuccess, lastError, queued: queue.length, dropped, delivered, failed };
    },
    running: () => intervalMs !== null,
  };
}

/** The counts of a sender that has sent nothing. */
const NO_COUNTS: SenderCounts = { dropped: 0, delivered: 0, failed: 0, lastSuccess: null, lastError: null };

/** A timer that does not keep the process alive: telemetry never holds up a stopping runtime. */
function unref(timer: ReturnType<typeof setTimeout>): ReturnType<typeof setTimeout> {
  timer.unref?.();
  return timer;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
