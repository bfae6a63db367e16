/** The levels of the daemon log, most severe first: a log of one level writes it and those before it. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What a line says besides its message: plain JSON values, or an error (written as its stack). */
export type LogFields = Record<string, unknown>;

type LogSink = (level: LogLevel, msg: string, fields?: LogFields) => void;

/**
 * Where `daemonLog` writes: one place in the process, shared by every bundle (each bundle has its own
 * copy of this module, so a module variable would not be).
 */
const SINK = Symbol.for('chutebox.daemon-log');
const registry = globalThis as typeof globalThis & { [SINK]?: LogSink };

/** Makes `sink` the process's daemon log (runtime/log/daemon-log.ts); undefined puts standard error back. */
export function setLogSink(sink: LogSink | undefined): void {
  registry[SINK] = sink;
}

/**
 * The daemon log of this process, for its notable events: a line of the daemon log of `chutebox
 * serve` or `chutebox emulate` once it is set up, and a line on standard error before that, or in a
 * process without one (a test, a library user of the emulator).
 *
 * @example
 * daemonLog.warn('no password is set: only clients on this machine are served');
 * daemonLog.error('repairing the chutes at start failed', { error });
 */
export const daemonLog: Record<LogLevel, (msg: string, fields?: LogFields) => void> = {
  error: (msg, fields) => write('error', msg, fields),
  warn: (msg, fields) => write('warn', msg, fields),
  info: (msg, fields) => write('info', msg, fields),
  debug: (msg, fields) => write('debug', msg, fields),
};

function write(level: LogLevel, msg: string, fields?: LogFields): void {
  const sink = registry[SINK];
  if (sink !== undefined) sink(level, msg, fields);
  else if (level !== 'debug') {
    const { error, ...rest } = fields ?? {};
    console.error(...[msg, ...(Object.keys(rest).length > 0 ? [JSON.stringify(rest)] : []), ...(error === undefined ? [] : [error])]);
  }
}
