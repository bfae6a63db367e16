import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../../functions/core/problem.ts';
import { failureLimiter } from './failure-limiter.ts';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

function refusal(run: () => void): HttpProblem | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error as HttpProblem;
  }
}

describe('failureLimiter', () => {
  it('allows a client up to 5 failures and refuses the next attempt with 429 and Retry-After', () => {
    const time = clock();
    const limiter = failureLimiter({ now: time.now });
    for (let i = 0; i < 5; i++) {
      expect(refusal(() => limiter.assertAllowed('10.0.0.5'))).toBeUndefined();
      limiter.recordFailure('10.0.0.5');
      time.advance(1000);
    }
    const problem = refusal(() => limiter.assertAllowed('10.0.0.5'));
    expect(problem).toBeInstanceOf(HttpProblem);
    expect(problem!.status).toBe(429);
    expect(problem!.headers['retry-after']).toBe('55');
  });

  it('lets the client in again once its failures leave the 60 s window', () => {
    const time = clock();
    const limiter = failureLimiter({ now: time.now });
    for (let i = 0; i < 5; i++) limiter.recordFailure('10.0.0.5');
    time.advance(59_999);
    expect(refusal(() => limiter.assertAllowed('10.0.0.5'))?.status).toBe(429);
    time.advance(1);
    expect(refusal(() => limiter.assertAllowed('10.0.0.5'))).toBeUndefined();
  });

  it('counts failures per address', () => {
    const limiter = failureLimiter({ now: clock().now });
    for (let i = 0; i < 5; i++) limiter.recordFailure('10.0.0.5');
    expect(refusal(() => limiter.assertAllowed('10.0.0.6'))).toBeUndefined();
  });
});
