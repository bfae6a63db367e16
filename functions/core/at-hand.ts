/** Where a promise made by `atHand` keeps its value; one symbol for every bundle (each has its own copy of this module). */
const AT_HAND = Symbol.for('chutebox.atHand');

/** What `valueAtHand` answers for a promise whose value is not known yet. */
export const NOT_AT_HAND: unique symbol = Symbol('not at hand');

/**
 * A settled promise of `value` that says so: what a device answers a read with when it has the
 * answer in memory (the emulator's recordings, a remembered parse). A handler awaits it as any
 * promise; `valueAtHand` takes its value without waiting, so that an answer made from such reads
 * alone can be checked, and given, in the request's own turn (functions/core/answer-reuse.ts).
 *
 * @example
 * const answer = atHand(Object.freeze(['iw', 'hostapd']));
 * const device = { programs: () => answer }; // not `async`: that would wrap it in a promise that does not say its value
 */
export function atHand<T>(value: T): Promise<T> {
  const promise = Promise.resolve(value) as Promise<T> & { [AT_HAND]?: T };
  promise[AT_HAND] = value;
  return promise;
}

/**
 * What a call on the device answered, if it is known now: a value that is not a promise, or the
 * value of an `atHand` promise; otherwise `NOT_AT_HAND`.
 *
 * @example
 * valueAtHand(atHand(3)) // 3
 * valueAtHand(Promise.resolve(3)) // NOT_AT_HAND
 */
export function valueAtHand(answer: unknown): unknown {
  if (!isThenable(answer)) return answer;
  return AT_HAND in answer ? (answer as { [AT_HAND]: unknown })[AT_HAND] : NOT_AT_HAND;
}

/** Whether `value` is a promise, or anything else with a `then` method. */
export function isThenable(value: unknown): value is Promise<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * `promise`, which says its value once it has settled with one (`valueAtHand`): for a device that
 * keeps the promise of an answer and hands the same one to later reads.
 *
 * @example
 * let kept: Promise<Container[]> | undefined;
 * const containers = () => (kept ??= keptAtHand(listContainers()));
 */
export function keptAtHand<T>(promise: Promise<T>): Promise<T> {
  promise.then(
    (value) => {
      (promise as Promise<T> & { [AT_HAND]?: T })[AT_HAND] = value;
    },
    () => {},
  );
  return promise;
}

/**
 * `compute` as a read of the device: its value at hand (`atHand`), or a rejected promise when it
 * throws, as an async function would answer.
 *
 * @example
 * const readFile = answeredAtHand((file: string) => files.get(file) ?? null);
 */
export function answeredAtHand<A extends unknown[], T>(compute: (...args: A) => T): (...args: A) => Promise<T> {
  return (...args) => {
    try {
      return atHand(compute(...args));
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

/**
 * `answer.then(next)`, made at once when `answer`'s value is at hand: then its result is at hand
 * too (or is the promise `next` answered).
 *
 * @example
 * const names = thenAtHand(base.chuteNames(), (names) => names.filter(installed)); // at hand when base's are
 */
export function thenAtHand<T, R>(answer: Promise<T>, next: (value: T) => R | Promise<R>): Promise<R> {
  const value = valueAtHand(answer);
  if (value === NOT_AT_HAND) return answer.then(next);
  try {
    const result = next(value as T);
    return isThenable(result) ? (result as Promise<R>) : atHand(result as R);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * `Promise.all(answers)`, at hand when every answer is.
 *
 * @example
 * const [uptime, stat] = await allAtHand([files.readFile('/proc/uptime'), files.readFile('/proc/stat')]);
 */
export function allAtHand<T extends readonly unknown[]>(answers: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const values = answers.map(valueAtHand);
  return (values.includes(NOT_AT_HAND) ? Promise.all(answers) : atHand(values)) as unknown as Promise<T>;
}
