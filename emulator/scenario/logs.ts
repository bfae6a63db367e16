import { withinTimes } from '../../functions/core/logs.ts';
import { mainServiceName, MAIN_SERVICE } from '../../functions/chutes/services.ts';
import { chuteState } from '../../functions/chutes/state.ts';
import { CHUTE_NAME, type ChuteLogEntry, type Device, type DeviceLogs, type LogOptions } from '../../functions/core/device/index.ts';
import { chuteLogFile, type ChuteLogFileEntry, parseLogFile } from '../../runtime/scenario/format.ts';
import { memoize } from './files.ts';

/** How often a following reader looks whether its chute still runs while no recorded line is due. */
export const FOLLOW_CHECK_MS = 1000;

/**
 * The chutes' recorded logs of a scenario: `chutes/<chute>/logs` (`parseLogFile`) read through its
 * raw `files` and parsed once; none for a chute without the file, or a name that is no chute name
 * (it never becomes a path).
 *
 * @throws ScenarioError (when read) for a file that is not a log: `chutebox emulate` checks each at start.
 */
export function scenarioLogs(files: Pick<Device, 'readFile'>): RecordedLogsOptions['read'] {
  return memoize(async (chute) => {
    if (!CHUTE_NAME.test(chute)) return [];
    const file = chuteLogFile(chute);
    const text = await files.readFile(`/${file}`);
    return text === null ? [] : parseLogFile(text, file);
  });
}

/** Where recorded logs come from, and the device they are replayed on. */
export interface RecordedLogsOptions {
  /** A chute's recorded lines, oldest first (`parseLogFile`), each of every service; none when it has no recording. */
  read(chute: string): Promise<readonly ChuteLogFileEntry[]>;
  /** Whether a chute runs: its container and stored state, as `GET /api/v1/chutes/<chute>` reads them; and the clock. */
  device: Pick<Device, 'containers' | 'chute' | 'now'>;
  /** How many whole seconds the recorded times move (`ScenarioClock.shift`); none by default: as recorded. */
  shift?: () => Promise<number>;
  /** Waits `ms`, or less when `signal` aborts; a timer by default. */
  pause?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Chute logs replayed from recordings on the device's clock, as a container engine answers them: each
 * recorded line labelled with its service (the chute's main one where the recording names none), its
 * time moved by `shift()` seconds, the lines whose time has come are the log so far. `tail`
 * takes the last lines of it, then `since` and `until` keep those in their range (both included);
 * with `follow`, each later line is sent when its time comes, until `until` has passed, the chute no
 * longer runs (looked at least every `FOLLOW_CHECK_MS`) or the reader cancels. A chute without a
 * recording has an empty log.
 *
 * @example
 * const logs = recordedLogs({ read: async () => entries, device });
 * const lines = await logs.chuteLogs('hello', { follow: true, since: null, until: null, tail: 10 });
 */
export function recordedLogs(options: RecordedLogsOptions): DeviceLogs {
  const { device } = options;
  const pause = options.pause ?? wait;
  const running = async (chute: string) => chuteState(await device.containers(), chute, (await device.chute(chute))?.record.state) === 'running';
  return {
    async chuteLogs(chute, query) {
      const [recorded, seconds, stored] = await Promise.all([options.read(chute), options.shift?.() ?? 0, device.chute(chute)]);
      // A line recorded without its service is the main one's.
      const main = stored === null ? MAIN_SERVICE : mainServiceName(stored.record);
      const lines = recorded.map((entry) => ({ ...entry, service: entry.service ?? main, time: seconds === 0 ? entry.time : movedTime(entry.time, seconds) }));
      const stopping = new AbortController();
      return new ReadableStream<ChuteLogEntry>({
        start(controller) {
          // Once the reader has cancelled, the stream is closed: nothing more goes to it.
          replay(lines, query, controller, { chute, stopping: stopping.signal, running, pause, now: device.now }).then(
            () => stopping.signal.aborted || controller.close(),
            (error: unknown) => stopping.signal.aborted || controller.error(error),
          );
        },
        cancel: () => stopping.abort(),
      });
    },
  };
}

/** What a replay needs besides its lines. */
interface Replay {
  chute: string;
  stopping: AbortSignal;
  running(chute: string): Promise<boolean>;
  pause(ms: number, signal: AbortSignal): Promise<void>;
  now(): number;
}

/** Enqueues the lines of `query` as `recordedLogs` says, until the log ends or the reader cancels. */
async function replay(lines: readonly ChuteLogEntry[], query: LogOptions, out: ReadableStreamDefaultController<ChuteLogEntry>, replay: Replay): Promise<void> {
  const { until, tail } = query;
  const times = lines.map((entry) => Date.parse(entry.time));
  const send = (i: number) => {
    if (withinTimes(lines[i]!, query)) out.enqueue(lines[i]!);
  };
  /** The last millisecond `until` takes in. */
  const end = until === null ? Number.POSITIVE_INFINITY : Date.parse(until);
  let next = 0;
  while (next < times.length && times[next]! <= replay.now()) next++;
  for (let i = tail === null ? 0 : Math.max(0, next - tail); i < next; i++) send(i);
  while (query.follow && replay.now() <= end && (await replay.running(replay.chute)) && !replay.stopping.aborted) {
    const due = next < times.length ? times[next]! - replay.now() : FOLLOW_CHECK_MS;
    await replay.pause(Math.max(0, Math.min(due, FOLLOW_CHECK_MS, end + 1 - replay.now())), replay.stopping);
    // Every line whose time has come, also when the timer woke late, past `until` (`send` keeps `until`).
    if (!replay.stopping.aborted) for (; next < times.length && times[next]! <= replay.now(); next++) send(next);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts: a timer the browser has too. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/**
 * A time of a log line (`LogEntrySchema`: RFC 3339 in UTC) moved by whole seconds, its fraction kept as written.
 *
 * @example
 * movedTime('2025-11-21T12:00:00.123456789Z', 90) // '2025-11-21T12:01:30.123456789Z'
 */
export function movedTime(time: string, seconds: number): string {
  const whole = time.slice(0, 19);
  return new Date(Date.parse(`${whole}Z`) + seconds * 1000).toISOString().slice(0, 19) + time.slice(19);
}
