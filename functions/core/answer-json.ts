import { isDeepFrozen, oncePerFrozen } from './deep-freeze.ts';

/**
 * How deep `answerJson` takes an answer apart: the answer and the objects it holds. Deeper, or in an
 * array that is not frozen, the whole value goes to `JSON.stringify` at once, which is faster than
 * joining its pieces here.
 */
const COMPOSED_LEVELS = 2;

/** The JSON of each deep-frozen object serialised so far, for as long as the object lives. */
const frozenJson = /* @__PURE__ */ oncePerFrozen((value: object) => JSON.stringify(value));

/**
 * `JSON.stringify(value)` for an answer, made once for each deep-frozen object in it: an object
 * frozen all the way down by `deepFreeze` (as `reusingLast` freezes its parses) can never change, so
 * its JSON is kept beside it, while it lives, and used again whenever an answer holds it. Answers are
 * often a few new fields around such parts (GET /api/v1/info/telemetry: a new `time`, and the parses
 * of sources that answered the same).
 *
 * The answer and the objects it holds (not arrays that are not frozen) are joined here from their
 * members' JSON; below that, `JSON.stringify` serialises each value as it is. A member that is
 * `undefined` (or a function) is left out, as `JSON.stringify` leaves it out; an object with a
 * `toJSON`, or of a class, goes to `JSON.stringify` as it is. An object frozen by `Object.freeze`
 * alone is serialised every time: what it holds may change.
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
  if (isDeepFrozen(value)) return frozenJson(value);
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
