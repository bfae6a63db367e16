import { describe, expect, it } from 'vitest';
import { sharedRuns } from './shared-run.ts';

/** Work that counts its runs; each run waits until the test settles every run pending. */
function work() {
  let runs = 0;
  let pending: { resolve: (value: string) => void; reject: (error: Error) => void }[] = [];
  const settle = (how: (run: (typeof pending)[number]) => void) => {
    const settling = pending;
    pending = [];
    settling.forEach(how);
  };
  return {
    runs: () => runs,
    start: () => {
      runs++;
      return new Promise<string>((resolve, reject) => pending.push({ resolve, reject }));
    },
    resolve: (value: string) => settle((run) => run.resolve(value)),
    reject: (error: Error) => settle((run) => run.reject(error)),
  };
}

/** Lets the runs that were asked for start. */
const started = () => new Promise((resolve) => setImmediate(resolve));

/** Makes `count` calls at once. */
const concurrently = <T>(count: number, call: () => Promise<T>) => Array.from({ length: count }, call);

describe('sharedRuns', () => {
  it('responds to concurrent calls with the same key from one run', async () => {
    const shared = sharedRuns<string>();
    const dump = work();
    const answers = Promise.all(concurrently(5, () => shared.run('iw dev vwlan0 station dump', dump.start)));
    await started();
    dump.resolve('Station 02:00:00:00:00:01');
    expect(await answers).toEqual(Array(5).fill('Station 02:00:00:00:00:01'));
    expect(dump.runs()).toBe(1);
  });

  it('responds to concurrent calls with different keys from a run per key', async () => {
    const shared = sharedRuns<string>();
    const dump = work();
    const answers = Promise.all([...concurrently(2, () => shared.run('vwlan0', dump.start)), ...concurrently(2, () => shared.run('vwlan1', dump.start))]);
    await started();
    dump.resolve('dump');
    await answers;
    expect(dump.runs()).toBe(2);
  });

  it('starts a new run, shared again, for calls made after the run settled', async () => {
    const shared = sharedRuns<string>();
    const dump = work();
    const first = Promise.all(concurrently(2, () => shared.run('key', dump.start)));
    await started();
    dump.resolve('old');
    expect(await first).toEqual(['old', 'old']);
    const second = Promise.all(concurrently(2, () => shared.run('key', dump.start)));
    await started();
    dump.resolve('new');
    expect(await second).toEqual(['new', 'new']);
    expect(dump.runs()).toBe(2);
  });

  it('rejects every sharer with the error of a failed run, and runs again for the next call', async () => {
    const shared = sharedRuns<string>();
    const dump = work();
    const sharers = concurrently(3, () => shared.run('key', dump.start));
    await started();
    dump.reject(new Error('iw failed'));
    for (const sharer of sharers) await expect(sharer).rejects.toThrow('iw failed');
    expect(dump.runs()).toBe(1);
    const next = shared.run('key', dump.start);
    await started();
    dump.resolve('dump');
    expect(await next).toBe('dump');
    expect(dump.runs()).toBe(2);
  });

  it('rejects the sharers when the work throws before answering a promise, and runs again for the next call', async () => {
    const shared = sharedRuns<string>();
    let runs = 0;
    const broken = (): Promise<string> => {
      runs++;
      throw new Error('cannot start');
    };
    const sharers = concurrently(2, () => shared.run('key', broken));
    for (const sharer of sharers) await expect(sharer).rejects.toThrow('cannot start');
    expect(runs).toBe(1);
    await expect(shared.run('key', broken)).rejects.toThrow('cannot start');
    expect(runs).toBe(2);
  });
});
