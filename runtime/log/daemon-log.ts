// The daemon's own log (`chutebox serve`, `chutebox emulate`): structured JSON lines on standard output
// and in a bounded ring that GET /api/v1/logs and /ws/paradrop_logs read. A bundle of its own
// (dist/daemon-log.mjs), loaded at start, so that the runtime bundle stays small. See
// docs/decisions/0048-structured-logs-and-the-ring.md.
import type { DeviceEvents } from '../../functions/core/device/index.ts';
import type { AnsweredRequest } from '../http/api.ts';
import { logDeviceEvents } from './device-events.ts';
import { LineWriter, type LineStream } from './line-writer.ts';
import { type LogFields, type LogLevel, LOG_LEVELS, setLogSink } from './log.ts';
import { LogRing, type LogLines } from './ring.ts';
import { UsageError, type LOG_OPTIONS } from '../options.ts';

/**
 * The level of the line of each answered request: below the default level (`info`), as a line costs
 * a tenth more CPU a request (docs/decisions/0048-structured-logs-and-the-ring.md).
 */
export const REQUEST_LEVEL: LogLevel = 'debug';

/** The range of `--log-buffer`, in KiB. */
export const LOG_BUFFER_KIB = { least: 64, most: 65_536 } as const;

/** The longest text a field of a line keeps; the rest becomes `…`. */
const MAX_FIELD_CHARS = 4096;

export interface DaemonLogOptions {
  /** The least severe level written and kept. */
  level: LogLevel;
  /** How many bytes of lines the ring keeps. */
  bytes: number;
  /** Where the lines are written; none keeps them in the ring only. */
  out?: LineStream;
}

/**
 * A daemon log: every line of its level or a more severe one becomes one JSON object
 * (`{"time":…,"level":…,"msg":…, …fields}`), written to `out` (a `LineWriter`: never waiting, dropping
 * what a slow reader leaves) and added to the ring. `install()` makes it the process's log, where
 * `daemonLog` (runtime/log/log.ts) writes from any module.
 *
 * @example
 * const log = new DaemonLog({ level: 'info', bytes: 256 * 1024, out: process.stdout }).install();
 * log.write('info', 'listening', { url });
 * createApp({ …, answered: log.requests, logs: log.ring });
 */
export class DaemonLog {
  readonly ring: LogRing;
  readonly #rank: number;
  readonly #writer: LineWriter | undefined;
  /**
   * Writes the line of an answered request (`ApiOptions.answered`); undefined when request lines are
   * below the level, so that the app does not time requests for nothing.
   */
  readonly requests: ((request: AnsweredRequest) => void) | undefined;

  constructor(options: DaemonLogOptions) {
    this.ring = new LogRing(options.bytes);
    this.#rank = LOG_LEVELS.indexOf(options.level);
    this.#writer = options.out === undefined ? undefined : new LineWriter(options.out, this.ring, droppedLine);
    this.requests = this.enabled(REQUEST_LEVEL) ? (request) => this.#request(request) : undefined;
  }

  /** Whether lines of `level` are written. */
  enabled(level: LogLevel): boolean {
    return LOG_LEVELS.indexOf(level) <= this.#rank;
  }

  /** Writes one line of `level`, unless the level is below the log's. */
  write(level: LogLevel, msg: string, fields: LogFields = {}): void {
    if (!this.enabled(level)) return;
    const ms = Date.now();
    const time = new Date(ms).toISOString();
    this.#add(time, ms, JSON.stringify({ time, level, msg: bounded(msg), ...jsonFields(fields) }));
  }

  /** Makes this the process's log: what `daemonLog` writes to. */
  install(): this {
    setLogSink((level, msg, fields) => this.write(level, msg, fields));
    return this;
  }

  /** Writes a line for each notable event of the device from now on (`logDeviceEvents`); answers how to stop. */
  followEvents(events: DeviceEvents): () => void {
    return logDeviceEvents(events, (level, msg, fields) => this.write(level, msg, fields));
  }

  /** Writes the lines not written yet; resolves once `out` took them, or after a second: before the process exits. */
  close(): Promise<void> {
    return this.#writer?.close(1000) ?? Promise.resolve();
  }

  /** The line of a request, as `write` would make it but written out: a third cheaper, and it may come with every request. */
  #request({ method, route, status, seconds, user }: AnsweredRequest): void {
    const ms = Date.now();
    const time = new Date(ms).toISOString();
    const json = JSON.stringify;
    this.#add(
      time,
      ms,
      `{"time":"${time}","level":"${REQUEST_LEVEL}","msg":"request","method":${json(method)},"route":${json(route)},"status":${status},"seconds":${Math.round(seconds * 1e6) / 1e6},"user":${json(user)}}`,
    );
  }

  #add(time: string, ms: number, line: string): void {
    this.ring.add(time, ms, line);
    this.#writer?.added();
  }
}

export type { LogLines };

/**
 * The daemon log of `chutebox serve` or `chutebox emulate`, from the values of `LOG_OPTIONS`, writing
 * to standard output and installed as the process's log.
 *
 * @throws UsageError naming `--log-level` or `--log-buffer`.
 */
export function startDaemonLog(values: Record<(typeof LOG_OPTIONS)[number]['flag'], string | undefined>): DaemonLog {
  const level = values['log-level']!;
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, not ${JSON.stringify(level)}`);
  }
  const text = values['log-buffer']!;
  const kib = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(kib >= LOG_BUFFER_KIB.least && kib <= LOG_BUFFER_KIB.most)) {
    throw new UsageError(`--log-buffer must be a whole number of KiB from ${LOG_BUFFER_KIB.least} to ${LOG_BUFFER_KIB.most}, not ${JSON.stringify(text)}`);
  }
  return new DaemonLog({ level: level as LogLevel, bytes: kib * 1024, out: process.stdout }).install();
}

/** The line that says how many lines standard output missed. */
function droppedLine(count: number): string {
  const time = new Date().toISOString();
  return JSON.stringify({ time, level: 'warn', msg: 'log lines dropped: standard output was read too slowly', dropped: count });
}

/** Fields as JSON takes them: an error as its stack (or message), long text cut. */
function jsonFields(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [name, value] of Object.entries(fields)) {
    out[name] = value instanceof Error ? bounded(value.stack ?? value.message) : typeof value === 'string' ? bounded(value) : value;
  }
  return out;
}

function bounded(text: string): string {
  return text.length > MAX_FIELD_CHARS ? `${text.slice(0, MAX_FIELD_CHARS)}…` : text;
}
