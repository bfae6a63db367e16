import { describe, expect, it } from 'vitest';
import { HttpProblem, nestedPath, type InputError } from './problem.ts';
import { collectViolations, invalidInput, placeViolations } from './violations.ts';

describe('collectViolations', () => {
  it("answers the check's value and adds nothing when the check passes", () => {
    const violations: InputError[] = [];
    expect(collectViolations(violations, () => 42)).toBe(42);
    expect(violations).toEqual([]);
  });

  it("adds every violation of a 422, each path through pathOf, and answers undefined, so one 422 can list several checks'", () => {
    const violations: InputError[] = [{ path: 'body.name', message: 'is required' }];
    const answer = collectViolations(
      violations,
      () => {
        throw invalidInput('the chute configuration', [
          { path: 'net.wlan.ssid', message: 'must not be empty' },
          { path: '', message: 'must be a mapping' },
        ]);
      },
      (path) => nestedPath('body.config', path),
    );
    expect(answer).toBeUndefined();
    expect(violations).toEqual([
      { path: 'body.name', message: 'is required' },
      { path: 'body.config.net.wlan.ssid', message: 'must not be empty' },
      { path: 'body.config', message: 'must be a mapping' },
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

describe('placeViolations', () => {
  const inConfig = (path: string) => nestedPath('body.config', path);

  it("answers the awaited check's value when it passes", async () => {
    expect(await placeViolations(async () => 42, inConfig, 'the chute configuration')).toBe(42);
  });

  it("throws the check's 422 again with each path where the checked part is in the request, the detail naming the first", async () => {
    const refusal = placeViolations(
      async () => {
        throw invalidInput('the chute configuration', [
          { path: 'net.wifi.vlan_id', message: 'VLAN 5 is taken by network staff of chute office' },
          { path: 'net.guest', message: 'the pool is full' },
        ]);
      },
      inConfig,
      'the chute configuration',
    );
    await expect(refusal).rejects.toMatchObject({
      status: 422,
      message: 'the chute configuration is not valid: body.config.net.wifi.vlan_id VLAN 5 is taken by network staff of chute office (and 1 more)',
      errors: [
        { path: 'body.config.net.wifi.vlan_id', message: 'VLAN 5 is taken by network staff of chute office' },
        { path: 'body.config.net.guest', message: 'the pool is full' },
      ],
    });
  });

  it('throws any other error as it is', async () => {
    const conflict = new HttpProblem(409, 'taken');
    await expect(
      placeViolations(
        async () => {
          throw conflict;
        },
        inConfig,
        'the chute configuration',
      ),
    ).rejects.toBe(conflict);
  });
});

describe('nestedPath', () => {
  it('places a path from a value under where the value is in the request: keys after a dot, list positions and the value itself as they are', () => {
    expect(nestedPath('body.config', 'net.wlan.ssid')).toBe('body.config.net.wlan.ssid');
    expect(nestedPath('body', '[0].ssid')).toBe('body[0].ssid');
    expect(nestedPath('body', '')).toBe('body');
    expect(nestedPath('', 'net')).toBe('net');
  });
});
