import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../functions/core/problem.ts';
import { checkStateText, STATE_LIMITS } from './state-limits.ts';

/** The problem `checkStateText` throws for a text, or null when it passes. */
function refusal(text: string, at = 'body'): HttpProblem | null {
  try {
    checkStateText(text, at);
    return null;
  } catch (error) {
    return error as HttpProblem;
  }
}

/** A list of `count` values, as JSON. */
const list = (count: number, value = '0') => `[${new Array(count).fill(value).join(',')}]`;

describe('checkStateText: the values of a state, counted before it is parsed', () => {
  it(`takes a text of ${STATE_LIMITS.values} values, and refuses one more with 422 naming where the state is`, () => {
    expect(refusal(list(STATE_LIMITS.values - 1))).toBeNull();
    const problem = refusal(list(STATE_LIMITS.values));
    expect(problem).toBeInstanceOf(HttpProblem);
    expect(problem).toMatchObject({
      status: 422,
      errors: [{ path: 'body', message: `holds more than ${STATE_LIMITS.values} values (mappings, lists, strings, numbers, …)` }],
    });
    expect(refusal(list(STATE_LIMITS.values), '')?.errors).toEqual([{ path: '', message: expect.stringContaining('holds more than') }]);
  });

  it('counts mappings and lists, empty ones too, so that a dense text of {} is refused', () => {
    expect(refusal(list(STATE_LIMITS.values / 2 - 1, '{}'))).toBeNull();
    expect(refusal(list(STATE_LIMITS.values / 2, '{}'))).not.toBeNull();
    expect(refusal(list(STATE_LIMITS.values / 2, '[]'))).not.toBeNull();
  });

  it('does not count commas and brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ messages: [`,[{ "\\" ${','.repeat(STATE_LIMITS.values)}`] });
    expect(refusal(text)).toBeNull();
  });
});
