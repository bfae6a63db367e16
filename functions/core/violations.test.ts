import { describe, expect, it } from 'vitest';
import { HttpProblem, type InputError } from './problem.ts';
import { invalidInput } from './validate.ts';
import { collectViolations } from './violations.ts';

describe('collectViolations', () => {
  it("answers the check's value and adds nothing when the check passes", () => {
    const violations: InputError[] = [];
    expect(collectViolations(violations, () => 42)).toBe(42);
    expect(violations).toEqual([]);
  });

  it("adds every violation of a 422, each path through pathOf, and answers undefined, so one 422 can list several checks'", () => {
    const violations: InputError[] = [{ path: 'name', message: 'is required' }];
    const answer = collectViolations(
      violations,
      () => {
        throw invalidInput('the chute configuration', [
          { path: 'net.wlan.ssid', message: 'must not be empty' },
          { path: '', message: 'must be a mapping' },
        ]);
      },
      (path) => (path === '' ? 'config' : `config.${path}`),
    );
    expect(answer).toBeUndefined();
    expect(violations).toEqual([
      { path: 'name', message: 'is required' },
      { path: 'config.net.wlan.ssid', message: 'must not be empty' },
      { path: 'config', message: 'must be a mapping' },
    ]);
  });

  it('throws any other error on, a problem of another status among them, and adds nothing', () => {
    const violations: InputError[] = [];
    const conflict = new HttpProblem(409, 'a chute named hello is already installed');
    expect(() =>
      collectViolations(violations, () => {
        throw conflict;
      }),
    ).toThrow(conflict);
    expect(() =>
      collectViolations(violations, () => {
        throw new TypeError('bug');
      }),
    ).toThrow(TypeError);
    expect(violations).toEqual([]);
  });
});
