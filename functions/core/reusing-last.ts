import { deepFreeze, isDeepFrozen } from './deep-freeze.ts';

/** How many of its last answers a `reusingLast` keeps for each owner: enough for one request that reads a source of each of a device's networks. */
export const ANSWERS_KEPT = 4;

/** One answer kept: the sources it was made from, and what `derive` made of them. */
interface Kept<Sources, Answer> {
  sources: Sources;
  answer: Answer;
}

/**
 * `derive` reusing its last answers (up to `ANSWERS_KEPT` for each owner) while their sources stay
 * the same: each the same string, number or other primitive (`===`: equal strings match, whoever
 * read them), or the same deep-frozen value (`deepFreeze`), which cannot have changed. Any other
 * object is never taken as the same: it may have been changed in place since. For the parse of a raw
 * source that is read fresh on every request: the read stays, and a text that did not change is not
 * parsed again, even when a request reads the same source of several networks in turn. The answer is
 * deep-frozen, as it is shared by every request that reads the same text (and an answer that holds it
 * reuses its JSON: see `answerJson`).
 *
 * The owner is whose sources they are: the device a handler was given, or any object that lives as
 * long as the sources' owner. Each keeps its own last answers, so that the devices of a fleet in one
 * process, read in turn, do not push out one another's, and an owner that goes takes its answers
 * with it (a `WeakMap`). The answer is still made only of the sources.
 *
 * @example
 * const meminfo = reusingLast(parseMeminfo);
 * meminfo(device, text) === meminfo(device, text) // true: parsed once
 * const shifted = reusingLast(shiftedLeases); // several sources: worked out again when any changed
 */
export function reusingLast<Sources extends unknown[], Answer>(derive: (...sources: Sources) => Answer): (owner: object, ...sources: Sources) => Answer {
  /** Each owner's answers, the most recently used first. */
  const keptBy = new WeakMap<object, Kept<Sources, Answer>[]>();
  return (owner, ...sources) => {
    let kept = keptBy.get(owner);
    if (kept === undefined) keptBy.set(owner, (kept = []));
    for (let i = 0; i < kept.length; i++) {
      const entry = kept[i]!;
      if (!sameSources(sources, entry.sources)) continue;
      // The most recently used first: the next look finds it at once.
      if (i > 0) {
        kept.splice(i, 1);
        kept.unshift(entry);
      }
      return entry.answer;
    }
    const entry = { sources, answer: deepFreeze(derive(...sources)) };
    kept.unshift(entry);
    if (kept.length > ANSWERS_KEPT) kept.pop();
    return entry.answer;
  };
}

function sameSources(sources: unknown[], last: unknown[]): boolean {
  if (sources.length !== last.length) return false;
  for (let i = 0; i < sources.length; i++) if (sources[i] !== last[i] || !unchanged(sources[i])) return false;
  return true;
}

/** Whether a value that is `===` the last one is also what it was then. */
const unchanged = (value: unknown) => (typeof value === 'object' ? value === null || isDeepFrozen(value) : typeof value !== 'function');
