import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpProblem } from '../functions/core/problem.ts';
import { emulatedClock, MAX_CLOCK_MS, type ClockReading } from './emulated-clock.ts';

const START = Date.UTC(2026, 0, 1, 12, 0, 0);

/** The problem a refused patch throws. */
async function refusal(promise: Promise<unknown>): Promise<HttpProblem> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(HttpProblem);
  return error as HttpProblem;
}

describe('emulatedClock: reading and setting', () => {
  it('starts at the real time, with nothing elapsed, at speed 1', () => {
    const before = Date.now();
    const clock = emulatedClock();
    const after = Date.now();
    const reading = clock.read();
    expect(reading.now - reading.elapsedMs).toBeGreaterThanOrEqual(before);
    expect(reading.now - reading.elapsedMs).toBeLessThanOrEqual(after);
    expect(reading.elapsedMs).toBeLessThanOrEqual(Date.now() - before);
    expect(reading.speed).toBe(1);
  });

  it('stands still at speed 0, and an advance moves the wall time and the elapsed time together', async () => {
    const clock = emulatedClock({ now: START, elapsedMs: 5000, speed: 0 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(clock.read()).toEqual({ now: START, elapsedMs: 5000, speed: 0 });
    expect(await clock.set({ advanceMs: 600_000 })).toEqual({ now: START + 600_000, elapsedMs: 605_000, speed: 0 });
    expect(clock.now()).toBe(START + 600_000);
  });

  it('sets the wall time keeping the elapsed time, the elapsed time keeping the wall time, and applies several in the order now, elapsedMs, advanceMs, speed', async () => {
    const clock = emulatedClock({ now: START, speed: 0 });
    expect(await clock.set({ now: START + 3_600_000 })).toEqual({ now: START + 3_600_000, elapsedMs: 0, speed: 0 });
    expect(await clock.set({ elapsedMs: 42 })).toEqual({ now: START + 3_600_000, elapsedMs: 42, speed: 0 });
    expect(await clock.set({ speed: 0, advanceMs: 10, elapsedMs: 100, now: START })).toEqual({ now: START + 10, elapsedMs: 110, speed: 0 });
  });

  it('runs at its speed: at 1000 a real 50 ms is 50 s of emulated time', async () => {
    const clock = emulatedClock({ now: START, speed: 1000 });
    const created = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Measured on the wall clock the emulated one reads: a timer of 50 ms may end 49 ms later by Date.now().
    const real = Date.now() - created;
    const { now, elapsedMs } = clock.read();
    expect(real).toBeGreaterThanOrEqual(45);
    expect(elapsedMs).toBeGreaterThanOrEqual(real * 1000);
    expect(now - START).toBe(elapsedMs);
  });

  it('refuses a bad patch with a 422 naming each field, and changes nothing', async () => {
    const clock = emulatedClock({ now: START, speed: 0 });
    const cases: [unknown, string][] = [
      [{ advanceMs: -1 }, 'body.advanceMs'],
      [{ speed: -2 }, 'body.speed'],
      [{ now: 'tomorrow' }, 'body.now'],
      [{ elapsedMs: 1.5 }, 'body.elapsedMs'],
      [{ now: MAX_CLOCK_MS + 1 }, 'body.now'],
      [{ now: MAX_CLOCK_MS - 10, advanceMs: 11 }, 'body.advanceMs'],
      [{ rewindMs: 5 }, 'body.rewindMs'],
      [[1], 'body'],
    ];
    for (const [patch, path] of cases) {
      const problem = await refusal(clock.set(patch, 'body'));
      expect(problem.status, JSON.stringify(patch)).toBe(422);
      expect(problem.errors?.map((error) => error.path)).toEqual([path]);
    }
    expect((await refusal(clock.set({ speed: Number.NaN }))).errors?.[0]?.path).toBe('speed');
    expect(clock.read()).toEqual({ now: START, elapsedMs: 0, speed: 0 });
  });
});

describe('emulatedClock: timers in emulated time', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('at speed 0 a timer waits for an advance, which runs every timer it passes in order, each at its own time', async () => {
    const clock = emulatedClock({ now: START, speed: 0 });
    const ran: [string, number][] = [];
    const note = (name: string) => () => ran.push([name, clock.read().elapsedMs]);
    clock.setTimeout(note('late'), 300);
    clock.setTimeout(note('first'), 100);
    clock.setTimeout(note('also at 100'), 100);
    clock.setTimeout(note('past the advance'), 5000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ran).toEqual([]);
    await clock.set({ advanceMs: 1000 });
    expect(ran).toEqual([
      ['first', 100],
      ['also at 100', 100],
      ['late', 300],
    ]);
  });

  it('an advance also runs the timers that the timers it runs set, within it: a change of three steps of 200 ms is over after 600 ms', async () => {
    const clock = emulatedClock({ now: START, speed: 0 });
    const steps: number[] = [];
    const change = (async () => {
      for (let step = 0; step < 3; step++) {
        await clock.sleep(200);
        steps.push(clock.read().elapsedMs);
      }
    })();
    await clock.set({ advanceMs: 600 });
    expect(steps).toEqual([200, 400, 600]);
    await change;
  });

  it('a timer due now runs at speed 0 too: a delay of 0 does not wait for an advance', async () => {
    const clock = emulatedClock({ now: START, speed: 0 });
    await clock.sleep(0);
    expect(clock.read().elapsedMs).toBe(0);
  });

  it('at speed 2 a timer comes twice as fast, at speed 0.5 half as fast', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: START });
    const fast = emulatedClock({ speed: 2 });
    const slow = emulatedClock({ speed: 0.5 });
    const ran: string[] = [];
    fast.setTimeout(() => ran.push('fast'), 1000);
    slow.setTimeout(() => ran.push('slow'), 1000);
    vi.advanceTimersByTime(499);
    expect(ran).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ran).toEqual(['fast']);
    vi.advanceTimersByTime(1499);
    expect(ran).toEqual(['fast']);
    vi.advanceTimersByTime(1);
    expect(ran).toEqual(['fast', 'slow']);
  });

  it('a timer follows a new speed: set to 0 it stops, set to 1 again it goes on from where it was', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: START });
    const clock = emulatedClock();
    let ran = false;
    clock.setTimeout(() => (ran = true), 1000);
    vi.advanceTimersByTime(600);
    await clock.set({ speed: 0 });
    vi.advanceTimersByTime(10_000);
    expect(ran).toBe(false);
    await clock.set({ speed: 1 });
    vi.advanceTimersByTime(399);
    expect(ran).toBe(false);
    vi.advanceTimersByTime(1);
    expect(ran).toBe(true);
  });

  it('a set of the wall time or of the elapsed time moves no timer: it waits the emulated time it had left', async () => {
    const clock = emulatedClock({ now: START, speed: 0 });
    let ran = false;
    clock.setTimeout(() => (ran = true), 1000);
    await clock.set({ now: START + 86_400_000, elapsedMs: 50_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ran).toBe(false);
    await clock.set({ advanceMs: 999 });
    expect(ran).toBe(false);
    await clock.set({ advanceMs: 1 });
    expect(ran).toBe(true);
  });

  it('clearTimeout cancels a timer', async () => {
    const clock = emulatedClock({ now: START, speed: 0 });
    let ran = false;
    clock.clearTimeout(clock.setTimeout(() => (ran = true), 10));
    await clock.set({ advanceMs: 100 });
    expect(ran).toBe(false);
  });

  it('pause ends at its time, at a jump of the clock, or when its signal aborts', async () => {
    const clock = emulatedClock({ now: START, speed: 0 });
    const never = new AbortController().signal;
    const jumped = clock.pause(60_000, never);
    await clock.set({ now: START + 1000 });
    await jumped;
    const aborting = new AbortController();
    const aborted = clock.pause(60_000, aborting.signal);
    aborting.abort();
    await aborted;
    expect(clock.read().elapsedMs).toBe(0);
  });
});

describe('emulatedClock: listeners, restore and reset', () => {
  it('tells its listeners of each jump, and of an advance once per timer it passes and once for the rest, reading the new time', async () => {
    const clock = emulatedClock({ now: START, speed: 0 });
    const seen: [number, number, number][] = [];
    const stop = clock.onChange((before: ClockReading, after: ClockReading) => seen.push([before.elapsedMs, after.elapsedMs, clock.read().elapsedMs]));
    clock.setTimeout(() => undefined, 100);
    await clock.set({ advanceMs: 250 });
    await clock.set({ elapsedMs: 10 });
    clock.restore({ now: START, elapsedMs: 20, speed: 0 });
    stop();
    await clock.set({ advanceMs: 5 });
    expect(seen).toEqual([
      [0, 100, 100],
      [100, 250, 250],
      [250, 10, 10],
      [10, 20, 20],
    ]);
  });

  it('restore puts it at a reading at once; reset back as it started: elapsed 0, its speed, its wall time', async () => {
    const clock = emulatedClock({ now: START, speed: 0 });
    clock.restore({ now: START + 5000, elapsedMs: 7000, speed: 3 });
    expect(clock.read().elapsedMs).toBeGreaterThanOrEqual(7000);
    clock.reset();
    expect(clock.read()).toEqual({ now: START, elapsedMs: 0, speed: 0 });
  });

  it('reset of a clock started at the real time puts it at the real time again', async () => {
    const clock = emulatedClock({ speed: 0 });
    await clock.set({ now: START, elapsedMs: 100, speed: 5 });
    const before = Date.now();
    clock.reset();
    const reading = clock.read();
    expect(reading.now).toBeGreaterThanOrEqual(before);
    expect(reading).toMatchObject({ elapsedMs: 0, speed: 0 });
  });
});
