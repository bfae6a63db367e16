/** Runs of a piece of work that concurrent callers with the same key share. */
export interface SharedRuns<T> {
  /**
   * Answers the promise of the run of `key` in flight, or starts `work()` as that run. Once the run
   * settles, either way, the key is forgotten: a call that starts after that starts a new run.
   */
  run(key: string, work: () => Promise<T>): Promise<T>;
}

/**
 * Concurrent identical reads share one run: while a run for a key is in flight, every further call
 * with that key gets the same promise (its answer, or its error). Nothing is kept once it settles,
 * so an answer is never older than the call that asked for it; no timers. Only for work that
 * changes nothing: a caller that shares a run gets what another caller's run saw, and the answer is
 * the same object for every sharer (treat it as read-only).
 *
 * @example
 * const dumps = sharedRuns<string>();
 * const [a, b] = await Promise.all([dumps.run('vwlan0', dump), dumps.run('vwlan0', dump)]); // one dump()
 */
export function sharedRuns<T>(): SharedRuns<T> {
  const inFlight = new Map<string, Promise<T>>();
  return {
    run(key, work) {
      const running = inFlight.get(key);
      if (running !== undefined) return running;
      // `work` may throw before it answers a promise: that is a rejection of the run too.
      const run: Promise<T> = Promise.resolve()
        .then(work)
        .finally(() => {
          if (inFlight.get(key) === run) inFlight.delete(key);
        });
      inFlight.set(key, run);
      return run;
    },
  };
}
