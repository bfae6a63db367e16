import { deepFreeze } from './deep-freeze.ts';

/**
 * `derive` reusing its last answer while its sources stay the same (each `===`: equal strings match,
 * whoever read them). For the parse of a raw source that is read fresh on every request: the read
 * stays, and a text that did not change is not parsed again. The answer is deep-frozen, as it is
 * shared by every request that reads the same text (and an answer that holds it reuses its JSON:
 * see `answerJson`).
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
  for (let i = 0; i < sources.length; i++) if (sources[i] !== last[i]) return false;
  return true;
}
