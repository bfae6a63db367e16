/**
 * How deep `answerJson` takes an answer apart: the answer and the objects it holds. Deeper, or in an
 * array that is not frozen, the whole value goes to `JSON.stringify` at once, which is faster than
 * joining its pieces here.
 */
const COMPOSED_LEVELS = 2;

/** The JSON of each frozen object serialised so far, for as long as the object lives. */
const frozenJson = new WeakMap<object, string>();

/**
 * `JSON.stringify(value)` for an answer, made once for each frozen object in it: an object frozen
 * all the way down (as `reusingLast` and `deepFreeze` freeze) cannot change, so its JSON is kept
 * beside it, while it lives, and used again whenever an answer holds it. Answers are often a few new
 * fields around frozen parts that stay the same from request to request (`reusingLast` answers
 * them): GET /api/v1/info/telemetry's is new on every request for its `time`, but its CPU times,
 * memory, disk usage, chutes and network counters are the same objects while their sources answer
 * the same, and their JSON (nearly all of its 3.8 KB, about 200 numbers) took `JSON.stringify`
 * about 15 µs to make again.
 *
 * The answer and the objects it holds (not arrays that are not frozen) are joined here from their
 * members' JSON; below that, `JSON.stringify` serialises each value as it is. A member that is
 * `undefined` (or a function) is left out, as `JSON.stringify` leaves it out; an object with a
 * `toJSON`, or of a class, goes to `JSON.stringify` as it is.
 *
 * @example
 * const cpus = deepFreeze([{ user: 612.34 }]);
 * answerJson({ time: 1795551682.096, cpus }) // '{"time":1795551682.096,"cpus":[{"user":612.34}]}'
 * answerJson({ time: 1795551682.097, cpus }) // the same JSON of `cpus`, not made again
 */
export function answerJson(value: unknown): string {
  // `undefined` (no answer) is JSON's null.
  return composed(value, 0) ?? 'null';
}

function composed(value: unknown, level: number): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Object.isFrozen(value)) {
    let json = frozenJson.get(value);
    if (json === undefined) {
      json = JSON.stringify(value);
      frozenJson.set(value, json);
    }
    return json;
  }
  if (level >= COMPOSED_LEVELS || Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype || 'toJSON' in value) return JSON.stringify(value);
  // Joined, not added up piece by piece: `join` makes one flat string, which Node writes as it is; a
  // string added up from pieces is a tree that must be copied flat first.
  const members: string[] = [];
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const member = composed(record[key], level + 1);
    if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
  }
  return `{${members.join(',')}}`;
}
