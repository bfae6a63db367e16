import * as z from 'zod/mini';
import { invalidInput, inputPath, validate } from '../functions/core/validate.ts';

/*
 * The time of one emulated device: everything the emulator answers or does as the device reads this
 * clock, never the real one (docs/decisions/0049-the-emulated-clock.md). It moves at `speed` times
 * the real time, stands still at speed 0, and is set, advanced and sped up through
 * `/_chutebox/clock`, `startEmulator` and the msw handlers.
 */

/** The latest time the clock reaches, in ms: the last millisecond of year 9999, the last one RFC 3339 spells. */
export const MAX_CLOCK_MS = 253_402_300_799_999;

/** The longest a real timer waits at once (setTimeout's limit); a longer wait is made of several. */
const MAX_REAL_WAIT_MS = 2 ** 31 - 1;

const milliseconds = (what: string) =>
  z
    .int({ error: `must be a whole number of milliseconds${what}` })
    .check(z.nonnegative({ error: 'must not be negative' }), z.maximum(MAX_CLOCK_MS, { error: `must be at most ${MAX_CLOCK_MS} (the end of year 9999)` }));
const speedSchema = z
  .number({ error: 'must be a finite number' })
  .check(z.nonnegative({ error: 'must not be negative: 0 stands still, 1 runs as the real clock' }));

/** What the clock reads: `GET /_chutebox/clock`'s answer, and the clock's part of an emulator state. */
export const ClockReadingSchema = z.strictObject({
  /** The emulated wall time, in ms since the epoch. */
  now: milliseconds(' since the epoch'),
  /** The emulated time since the replay of the recording started, in ms: the uptime the device adds to the recorded one. */
  elapsedMs: milliseconds(''),
  /** How many emulated ms pass in a real one: 1 by default, 0 stands still. */
  speed: speedSchema,
});
export type ClockReading = z.infer<typeof ClockReadingSchema>;

/** How a clock starts: each part left out is the default's (the real time, 0, 1). */
export type ClockStart = Partial<ClockReading>;

/**
 * A change of the clock (`PATCH /_chutebox/clock`), its parts applied in this order: `now` sets the
 * wall time (the elapsed time stays), `elapsedMs` the time since the replay started (the wall time
 * stays), `advanceMs` moves both forward and runs every timer it passes, `speed` sets the rate.
 */
export const ClockPatchSchema = z.strictObject({
  now: z.optional(ClockReadingSchema.shape.now),
  elapsedMs: z.optional(ClockReadingSchema.shape.elapsedMs),
  advanceMs: z.optional(milliseconds('')),
  speed: z.optional(speedSchema),
});
export type ClockPatch = z.infer<typeof ClockPatchSchema>;

/** A timer of the clock, for `clearTimeout`. */
export interface ClockTimer {
  readonly due: number;
}

/** Told of a jump of the clock: what it read before and after. */
export type ClockListener = (before: ClockReading, after: ClockReading) => void;

/** One emulated device's clock; see `emulatedClock`. */
export interface EmulatedClock {
  /** The emulated wall time, in whole ms since the epoch: the Device's `now()`. */
  now(): number;
  /** The wall time, the elapsed time and the speed, read at one moment. */
  read(): ClockReading;
  /**
   * Applies a patch once it is checked (a value from a request or from code); resolves with the new
   * reading once every timer an advance passed has run.
   *
   * @param at where the fields are named from: `''` the patch itself, `'body'` a request's body.
   * @throws HttpProblem 422 naming each field that is wrong; nothing changes then.
   */
  set(patch: unknown, at?: string): Promise<ClockReading>;
  /** Puts the clock at a reading at once (a state restored), running no timer. */
  restore(reading: ClockReading): void;
  /** Puts the clock back as it started: elapsed 0, the start's speed, and the start's wall time (the real one when none was given). */
  reset(): void;
  /** Runs `run` once `ms` of emulated time has passed (0: as soon as it can); a timer that models the device. */
  setTimeout(run: () => void, ms: number): ClockTimer;
  clearTimeout(timer: unknown): void;
  /** Resolves after `ms` of emulated time. */
  sleep(ms: number): Promise<void>;
  /** Resolves after `ms` of emulated time, when the clock jumps (`onChange`) or when `signal` aborts, whichever comes first. */
  pause(ms: number, signal: AbortSignal): Promise<void>;
  /**
   * Calls `listener` whenever the clock moves other than by running: a set, an advance (once for each
   * timer it passes, just before that timer runs, then once for the rest), a restore, a reset. The
   * clock reads `after` while the listener runs. Answers the function that stops it.
   */
  onChange(listener: ClockListener): () => void;
}

/** A timer waiting its turn. */
interface Pending extends ClockTimer {
  run: () => void;
}

/**
 * An emulated clock. Inside it runs a monotonic *running time*, which moves with the real time
 * times `speed` and with an advance, and never jumps: the wall time and the elapsed time are that
 * running time plus an offset each, which a set of `now` or `elapsedMs` changes. Timers wait for
 * the running time: at speed 2 they come twice as fast, at speed 0 they wait for an advance, and a
 * set of `now` or `elapsedMs` moves none of them (a timer waits the emulated time it had left, as a
 * device's timers ignore a change of its wall clock). Due timers run one at a time, each in a
 * macrotask of its own, in order of their time and then of their setting; an advance runs each it
 * passes at its own time, and lets what its promises do settle before the next. The clock reads the
 * real time (`Date.now`) and nothing else in the emulator does.
 *
 * @example
 * const clock = emulatedClock({ now: Date.UTC(2026, 0, 1), speed: 0 });
 * const step = clock.sleep(200);
 * await clock.set({ advanceMs: 1000 }); // `step` has resolved; clock.now() is 1000 ms later
 */
export function emulatedClock(start: ClockStart = {}): EmulatedClock {
  let speed = start.speed ?? 1;
  /** The running time at the last anchor, and the real time then: it runs from there at `speed`. */
  let anchorRun = 0;
  let anchorReal = Date.now();
  let wallOffset = start.now ?? anchorReal;
  let elapsedOffset = start.elapsedMs ?? 0;
  /** While an advance runs, the running time is its cursor and does not follow the real time. */
  let held = false;
  /** The timers waiting, in the order they run: by their time, then in the order they were set. */
  const timers: Pending[] = [];
  let driver: ReturnType<typeof setTimeout> | undefined;
  /** Advances, one after another. */
  let advancing: Promise<unknown> = Promise.resolve();
  const listeners = new Set<ClockListener>();

  /** The running time now, kept where the wall time and the elapsed time stay within MAX_CLOCK_MS. */
  function running(): number {
    if (held || speed === 0) return anchorRun;
    const moved = Math.max(0, Math.floor(speed * (Date.now() - anchorReal)));
    return Math.max(anchorRun, Math.min(anchorRun + moved, MAX_CLOCK_MS - Math.max(wallOffset, elapsedOffset)));
  }

  function read(): ClockReading {
    const run = running();
    return { now: run + wallOffset, elapsedMs: run + elapsedOffset, speed };
  }

  /** Fixes the running time where it is now, to change the rate or the offsets from there. */
  function anchor(): void {
    anchorRun = running();
    anchorReal = Date.now();
  }

  /** Tells the listeners of a jump from `before` to the reading now. */
  function jumped(before: ClockReading): void {
    const after = read();
    for (const listener of [...listeners]) listener(before, after);
  }

  /** Puts the offsets and the speed where `reading` says, without moving the running time. */
  function place(reading: Partial<ClockReading>): void {
    anchor();
    if (reading.now !== undefined) wallOffset = reading.now - anchorRun;
    if (reading.elapsedMs !== undefined) elapsedOffset = reading.elapsedMs - anchorRun;
    if (reading.speed !== undefined) speed = reading.speed;
    drive();
  }

  /** Sets the one real timer that runs the next due timer, when the running time will reach it. */
  function drive(): void {
    if (driver !== undefined) clearTimeout(driver);
    driver = undefined;
    if (held || timers.length === 0) return;
    const wait = timers[0]!.due - running();
    if (wait > 0 && speed === 0) return;
    driver = setTimeout(runDue, wait <= 0 ? 0 : Math.min(Math.ceil(wait / speed), MAX_REAL_WAIT_MS));
    (driver as { unref?: () => void }).unref?.();
  }

  /** Runs the first timer if it is due, then sets the real timer for the next. */
  function runDue(): void {
    driver = undefined;
    if (!held && timers.length > 0 && timers[0]!.due <= running()) timers.shift()!.run();
    drive();
  }

  /** Moves the running time by `ms`, running each timer it passes at its own time. */
  async function advance(ms: number): Promise<void> {
    anchor();
    held = true;
    drive();
    const target = Math.min(anchorRun + ms, MAX_CLOCK_MS - Math.max(wallOffset, elapsedOffset));
    try {
      while (timers.length > 0 && timers[0]!.due <= target) {
        const timer = timers.shift()!;
        moveTo(timer.due);
        timer.run();
        await settled();
      }
      moveTo(target);
    } finally {
      held = false;
      anchorReal = Date.now();
      drive();
    }
  }

  /** Moves a held running time forward to `run`, telling the listeners. */
  function moveTo(run: number): void {
    if (run <= anchorRun) return;
    const before = read();
    anchorRun = run;
    jumped(before);
  }

  function setTimer(run: () => void, ms: number): ClockTimer {
    const timer: Pending = { due: running() + Math.max(0, Math.ceil(Number.isFinite(ms) ? ms : 0)), run };
    timers.splice(insertionPoint(timers, timer), 0, timer);
    if (timers[0] === timer) drive();
    return timer;
  }

  function clearTimer(timer: unknown): void {
    const at = timers.indexOf(timer as Pending);
    if (at < 0) return;
    timers.splice(at, 1);
    if (at === 0) drive();
  }

  return {
    now: () => read().now,
    read,
    async set(value, at = '') {
      const patch = checkedPatch(value, read(), at);
      const before = read();
      // All at one moment, the time flowing at neither speed in between; an advance holds it still
      // anyway, so the speed set with it (which the order puts last) is in effect once it is over.
      place({ now: patch.now, elapsedMs: patch.elapsedMs, speed: patch.speed });
      if (patch.now !== undefined || patch.elapsedMs !== undefined) jumped(before);
      if (patch.advanceMs !== undefined) {
        const step = advancing.then(() => advance(patch.advanceMs!));
        advancing = step.catch(() => undefined);
        await step;
      }
      return read();
    },
    restore(reading) {
      const before = read();
      place(reading);
      jumped(before);
    },
    reset() {
      const before = read();
      place({ now: start.now ?? Date.now(), elapsedMs: 0, speed: start.speed ?? 1 });
      jumped(before);
    },
    setTimeout: setTimer,
    clearTimeout: clearTimer,
    sleep: (ms) => new Promise((resolve) => void setTimer(resolve, ms)),
    pause(ms, signal) {
      return new Promise((resolve) => {
        const done = () => {
          clearTimer(timer);
          stop();
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimer(done, ms);
        const stop = onChange(done);
        signal.addEventListener('abort', done);
        if (signal.aborted) done();
      });
    },
    onChange,
  };

  function onChange(listener: ClockListener): () => void {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }
}

/**
 * A patch as `ClockPatchSchema` checks it, and whether it keeps the clock within MAX_CLOCK_MS from
 * `reading`: an advance that would move the wall time or the elapsed time past it is refused.
 *
 * @throws HttpProblem 422 naming each field from `at`.
 */
function checkedPatch(value: unknown, reading: ClockReading, at: string): ClockPatch {
  const patch = validate(ClockPatchSchema, value, at, at || 'the clock patch');
  const advance = patch.advanceMs ?? 0;
  const past = [patch.now ?? reading.now, patch.elapsedMs ?? reading.elapsedMs].some((time) => time + advance > MAX_CLOCK_MS);
  if (past) {
    throw invalidInput(at || 'the clock patch', [
      { path: inputPath(at, ['advanceMs']), message: `would move the clock past ${MAX_CLOCK_MS} (the end of year 9999)` },
    ]);
  }
  return patch;
}

/** Where a timer goes among the waiting ones: after every timer due before it or at the same time. */
function insertionPoint(timers: readonly Pending[], timer: Pending): number {
  let low = 0;
  let high = timers.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (timers[middle]!.due <= timer.due) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Resolves once what the promises of a timer just run (or any work just begun) have done settles: the next macrotask. */
export function settled(): Promise<void> {
  return new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));
}
