import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import Docker from 'dockerode';
import { containerService, isCompanion } from '../../functions/chutes/services.ts';
import { byLogTime, entriesAsTheyCome, entryStream, followedBy, mergedByTime, nanoAfter, nanoTime } from '../../functions/core/logs.ts';
import { CHUTE_LABEL, type ChuteLogEntry, type LogEntry, type LogOptions, type LogStream, type LogTime } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { chuteEngine, engineCall, EngineError } from './docker.ts';
import { engineUnreachableAt } from './unreachable.ts';

/** How long the engine may take to begin its answer; the lines then come for as long as they come. */
const ANSWER_DEADLINE_MS = 10_000;

/** How long a line may grow before it is sent as it is: a bound on what one reader holds of a line without its end. */
export const MAX_LINE_CHARS = 64 * 1024;

/** How many entries a reader that reads slower than the chute prints may have waiting before the engine's answer is paused. */
const QUEUED_ENTRIES = 64;

/** The timestamp the engine puts before each line it sends (`timestamps=1`): RFC 3339 in UTC, to the nanosecond, then a space. */
const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) /;

/**
 * The log of a chute (`Device.chuteLogs`), from the engine at `socketPath`: the log of each of its
 * services' containers (the newest of each, `serviceContainers`), each line labelled with its service.
 * A container's log is `GET /containers/<id>/logs` with `stdout`, `stderr`, `timestamps` and the
 * `options` as the engine takes them (`follow`, `since` and `until` in seconds, `tail`), its two
 * streams demultiplexed by docker-modem's `demuxStream` and cut into lines, each an entry with the
 * engine's timestamp. The lines so far are interleaved by time; with `follow` (and more than one
 * service) each service's log is then asked again from a nanosecond after its last line, and the new
 * lines sent as they come, until every container has stopped. The answers are streamed, also
 * without `follow`, and paused while the reader does not keep up; cancelling the stream closes the
 * engine's answers. Empty when the chute has no container.
 *
 * @throws HttpProblem 503 when no engine listens at `socketPath` or it does not answer, 502 when it
 *   refuses (`Device.chuteLogs`).
 * @example
 * const lines = await chuteLogs('/var/run/docker.sock', 'hello', { follow: true, since: null, until: null, tail: 100 });
 */
export async function chuteLogs(socketPath: string, chute: string, options: LogOptions): Promise<ReadableStream<ChuteLogEntry>> {
  const engine = await chuteEngine(socketPath);
  if (engine === null) throw engineUnreachableAt(socketPath);
  const failed = (error: unknown) => {
    const { statusCode, message } = error as EngineError & { statusCode?: number };
    return new HttpProblem(statusCode === undefined ? 503 : 502, `the container engine cannot give the log of chute ${chute}: ${message}`);
  };
  try {
    const docker = new Docker({ socketPath });
    const containers = serviceContainers(await engine.listAll(), chute);
    const read = async ({ id, service }: ServiceContainer, query: LogOptions) => {
      // Gone since it was listed (404): it has no log any more.
      const answer = await engineCall(() => requestLogs(docker, id, query), 404);
      return answer === undefined ? entryStream([]) : logEntries(answer, docker.modem, service);
    };
    if (containers.length <= 1 || !options.follow) return mergedByTime(await Promise.all(containers.map((container) => read(container, options))));
    const started = nanoTime(new Date().toISOString());
    const last = new Map<string, LogTime>();
    const history = mergedByTime(await Promise.all(containers.map((container) => read(container, { ...options, follow: false }))));
    const noted = history.pipeThrough(new TransformStream({ transform: (entry, out) => (last.set(entry.service, entry.time), out.enqueue(entry)) }));
    const resumed = (service: string) => {
      const seen = last.get(service);
      if (seen !== undefined) return nanoAfter(seen);
      return options.since !== null && options.since > started ? options.since : started;
    };
    const following = () => Promise.all(containers.map((c) => read(c, { ...options, tail: null, since: resumed(c.service) })));
    return followedBy(noted, async () => entriesAsTheyCome(await following().catch((error: unknown) => Promise.reject(failed(error)))));
  } catch (error) {
    throw failed(error);
  }
}

/** The container of one of a chute's services. */
interface ServiceContainer {
  id: string;
  service: string;
}

/**
 * The containers whose logs are a chute's, from the engine's list of chute containers: the newest
 * labelled with the chute for each of its services (`containerService`), the main one first.
 */
export function serviceContainers(listed: readonly Record<string, unknown>[], chute: string): ServiceContainer[] {
  const newest = new Map<string, Record<string, unknown>>();
  for (const container of listed) {
    const labels = container.Labels as Record<string, unknown> | undefined;
    if (labels?.[CHUTE_LABEL] !== chute) continue;
    const service = containerService(labels);
    const kept = newest.get(service);
    if (kept === undefined || Number(container.Created) > Number(kept.Created)) newest.set(service, container);
  }
  const all = [...newest].map(([service, container]) => ({
    id: String(container.Id),
    service,
    companion: isCompanion(container.Labels as Record<string, unknown>),
  }));
  return all.sort((a, b) => Number(a.companion) - Number(b.companion)).map(({ id, service }) => ({ id, service }));
}

/**
 * The engine's answer to a log request, as a stream: docker-modem's `dial` with `isStream`, as
 * dockerode's `logs` makes it, which reads the whole answer into memory first unless it follows.
 */
function requestLogs(docker: Docker, id: string, options: LogOptions): Promise<IncomingMessage> {
  const query: Record<string, unknown> = { follow: options.follow, stdout: true, stderr: true, timestamps: true, tail: options.tail ?? 'all' };
  if (options.since !== null) query.since = seconds(options.since);
  if (options.until !== null) query.until = seconds(options.until);
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new Error(`the engine did not answer the log request within ${ANSWER_DEADLINE_MS / 1000} s`)),
    ANSWER_DEADLINE_MS,
  );
  return new Promise<IncomingMessage>((resolve, reject) =>
    docker.modem.dial(
      {
        path: `/containers/${id}/logs?`,
        method: 'GET',
        isStream: true,
        statusCodes: { 200: true, 404: 'no such container', 500: 'server error' },
        options: query,
        abortSignal: deadline.signal,
      },
      (error, answer) => (error ? reject(error) : resolve(answer as IncomingMessage)),
    ),
  ).finally(() => clearTimeout(timer));
}

/**
 * A `LogTime` as the engine takes one: seconds since the epoch, a dot, nanoseconds.
 *
 * @example
 * seconds('2026-11-21T12:00:01.500000000Z') // '1795262401.500000000'
 */
function seconds(time: LogTime): string {
  return `${Date.parse(`${time.slice(0, 19)}Z`) / 1000}.${time.slice(20, 29)}`;
}

/**
 * The entries of the engine's multiplexed answer for a container of `service`, in time order. The answer is paused
 * while `QUEUED_ENTRIES` wait for the reader, and destroyed when the reader cancels; an answer cut
 * short (the engine went away) errors the stream.
 */
function logEntries(answer: IncomingMessage, modem: Docker['modem'], service: string): ReadableStream<ChuteLogEntry> {
  let ended = false;
  return new ReadableStream<ChuteLogEntry>(
    {
      start(controller) {
        const emit = (entry: LogEntry) => {
          if (ended) return;
          controller.enqueue({ ...entry, service });
          if ((controller.desiredSize ?? 0) <= 0) answer.pause();
        };
        const streams = inTimeOrder(emit);
        modem.demuxStream(answer, streams.stdout, streams.stderr);
        answer.once('end', () => {
          if (ended) return;
          ended = true;
          streams.flush();
          controller.close();
        });
        answer.once('close', () => {
          if (ended) return;
          ended = true;
          controller.error(new EngineError('the container engine closed the log before its end'));
        });
      },
      pull() {
        answer.resume();
      },
      cancel() {
        ended = true;
        answer.destroy();
      },
    },
    { highWaterMark: QUEUED_ENTRIES },
  );
}

/**
 * Where a container's two demultiplexed streams go, cut into lines (`lineSink`) and emitted in time
 * order. The engine sends its messages in time order, but a line over its 16 KiB comes in parts and
 * keeps the time of its first: a line of the other stream sent between its parts waits for it.
 */
function inTimeOrder(emit: (entry: LogEntry) => void): { stdout: Writable; stderr: Writable; flush(): void } {
  const waiting: Record<LogStream, LogEntry[]> = { stdout: [], stderr: [] };
  const sinks = {
    stdout: lineSink('stdout', (entry) => waiting.stdout.push(entry)),
    stderr: lineSink('stderr', (entry) => waiting.stderr.push(entry)),
  };
  /** Emits the waiting entries, oldest first, up to one that a line the other stream has begun must come before. */
  const release = () => {
    for (;;) {
      const [out, err] = [waiting.stdout[0], waiting.stderr[0]];
      const stream: LogStream | undefined = out && (!err || byLogTime(out, err) <= 0) ? 'stdout' : err ? 'stderr' : undefined;
      if (stream === undefined) return;
      const begun = sinks[stream === 'stdout' ? 'stderr' : 'stdout'].unfinishedSince();
      if (begun !== null && nanoTime(begun) < nanoTime(waiting[stream][0]!.time)) return;
      emit(waiting[stream].shift()!);
    }
  };
  const writable = (sink: ReturnType<typeof lineSink>) =>
    new Writable({
      write(message: Buffer, _encoding, done) {
        sink.write(message);
        release();
        done();
      },
    });
  return {
    stdout: writable(sinks.stdout),
    stderr: writable(sinks.stderr),
    flush() {
      sinks.stdout.flush();
      sinks.stderr.flush();
      release();
    },
  };
}

/**
 * One stream of the demultiplexed answer: each of the engine's messages (a line, or a part of a
 * line over its 16 KiB) is cut into lines, each line an entry with the timestamp it began with. A
 * part that goes on with a line has a timestamp of its own, which is dropped; a line over
 * `MAX_LINE_CHARS` is sent in parts. `unfinishedSince` is the time of a line begun and not ended;
 * `flush` sends what is left without a line end.
 */
function lineSink(stream: LogStream, emit: (entry: LogEntry) => void) {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const take = (text: string) => {
    const lines = (pending === '' ? text : pending + text.replace(STAMP, '')).split('\n');
    pending = lines.pop()!;
    for (const line of lines) emit(logEntry(line, stream));
    if (pending.length > MAX_LINE_CHARS) {
      emit(logEntry(pending, stream));
      pending = '';
    }
  };
  return {
    write: (message: Buffer) => take(decoder.write(message)),
    unfinishedSince: (): LogTime | null => (pending === '' ? null : (STAMP.exec(pending)?.[1] ?? null)),
    flush() {
      take(decoder.end());
      if (pending !== '') emit(logEntry(pending, stream));
      pending = '';
    },
  };
}

/**
 * A line as the engine sent it, as an entry: its timestamp (now, should it have none) and its text,
 * without a carriage return that ended it.
 *
 * @example
 * logEntry('2026-11-21T12:00:01.123456789Z listening on :8000\r', 'stdout') // { time: '2026-11-21T12:00:01.123456789Z', stream: 'stdout', message: 'listening on :8000' }
 */
export function logEntry(line: string, stream: LogStream): LogEntry {
  const stamp = STAMP.exec(line);
  const text = stamp === null ? line : line.slice(stamp[0].length);
  return { time: stamp?.[1] ?? new Date().toISOString(), stream, message: text.endsWith('\r') ? text.slice(0, -1) : text };
}
