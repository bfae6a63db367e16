import { deepFreeze, isDeepFrozen } from './deep-freeze.ts';

/** How many of its last answers a `reusingLast` keeps: enough for one request that reads a source of each of a device's networks. */
export const ANSWERS_KEPT = 4;

/**
 * `derive` reusing its last answers (up to `ANSWERS_KEPT`) while their sources stay the same: each
 * the same string, number or other primitive (`===`: equal strings match, whoever read them), or the
 * same deep-frozen value (`deepFreeze`), which cannot have changed. Any other object is never taken
 * as the same: it may have been changed in place since. For the parse of a raw source that is read
 * fresh on every request: the read stays, and a text that did not change is not parsed again, even
 * when a request reads the same source of several networks in turn. The answer is deep-frozen, as it
 * is shared by every request that reads the same text (and an answer that holds it reuses its JSON:
 * see `answerJson`).
 *
 * @example
 * const meminfo = reusingLast(parseMeminfo);
 * meminfo(text) === meminfo(text) // true: parsed once
 * const shifted = reusingLast(shiftedLeases); // several sources: worked out again when any changed
 */
export function reusingLast<Sources extends unknown[], Answer>(derive: (...sources: Sources) => Answer): (...sources: Sources) => Answer {
  /** The answers kept, the most recently used first. */
  const kept: { sources: Sources; answer: Answer }[] = [];
  return (...sources) => {
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
