/**
 * What each of a fleet's most recently used devices keeps of its own, a `Map` for each: at most
 * `most` devices keep theirs, the least recently used forgetting first, so that what is kept stays
 * bounded however many devices the fleet has. Each device's `Map` is its own: no device reads what
 * another kept.
 *
 * @example
 * const recent = new RecentlyUsed<object>(64);
 * recent.of(device).set('engine', engine); // kept until 64 other devices were used since
 */
export class RecentlyUsed<Owner extends object> {
  readonly #most: number;
  // In the order they were last used, the least recently first.
  readonly #kept = new Map<Owner, Map<string, unknown>>();

  constructor(most: number) {
    this.#most = most;
  }

  /** What `owner` keeps, an empty `Map` when it kept nothing or forgot it; `owner` is now the most recently used. */
  of(owner: Owner): Map<string, unknown> {
    let kept = this.#kept.get(owner);
    if (kept === undefined) kept = new Map();
    else this.#kept.delete(owner);
    this.#kept.set(owner, kept);
    if (this.#kept.size > this.#most) this.#kept.delete(this.#kept.keys().next().value!);
    return kept;
  }
}
