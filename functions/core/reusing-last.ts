import { deepFreeze, isDeepFrozen } from './deep-freeze.ts';

/**
 * `derive` reusing its last answer while its sources stay the same: each the same string, number or
 * other primitive (`===`: equal strings match, whoever read them), or the same deep-frozen value
 * (`deepFreeze`), which cannot have changed. Any other object is never taken as the same: it may have
 * been changed in place since. For the parse of a raw source that is read fresh on every request: the
 * read stays, and a text that did not change is not parsed again. The answer is deep-frozen, as it is
 * shared by every request that reads the same text (and an answer that holds it reuses its JSON: see
 * `answerJson`).
 *
 * @example
 * const meminfo = reusingLast(parseMeminfo);
 * meminfo(text) === meminfo(text) // true: parsed once
 * const shifted = reusingLast(shiftedLeases); // several sources: worked out again when any changed
 */
export function reusingLast<Sources extends unknown[], Answer>(derive: (...sources: Sources) => Answer): (...sources: Sources) => Answer {
  let lastSources: Sources | undefined;
  let lastAnswer: Answer;
  return (...sources) => {
    if (!sameSources(sources, lastSources)) {
      lastAnswer = deepFreeze(derive(...sources));
      lastSources = sources;
    }
    return lastAnswer;
  };
}

function sameSources(sources: unknown[], last: unknown[] | undefined): boolean {
  if (last === undefined || sources.length !== last.length) return false;
  for (let i = 0; i < sources.length; i++) if (sources[i] !== last[i] || !unchanged(sources[i])) return false;
  return true;
}

/** Whether a value that is `===` the last one is also what it was then. */
const unchanged = (value: unknown) => (typeof value === 'object' ? value === null || isDeepFrozen(value) : typeof value !== 'function');
