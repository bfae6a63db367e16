import { deepFreeze } from './deep-freeze.ts';

/**
 * `derive` for one source at a time, reusing its last answer while the source stays the same (`===`:
 * equal strings match, whoever read them). For the parse of a raw source that is read fresh on every
 * request: the read stays, and a text that did not change is not parsed again. The answer is deep-frozen,
 * as it is shared by every request that reads the same text (and `invoke` reuses the JSON of a frozen
 * answer that it serialised last).
 *
 * @example
 * const meminfo = reusingLast(parseMeminfo);
 * meminfo(text) === meminfo(text) // true: parsed once
 */
export function reusingLast<Source, Answer>(derive: (source: Source) => Answer): (source: Source) => Answer {
  let lastSource: Source;
  let lastAnswer: Answer;
  let empty = true;
  return (source) => {
    if (empty || source !== lastSource) {
      lastAnswer = deepFreeze(derive(source));
      lastSource = source;
      empty = false;
    }
    return lastAnswer;
  };
}
