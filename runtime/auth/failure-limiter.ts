import { HttpProblem } from '../../functions/core/problem.ts';

export interface FailureLimiterOptions {
  /** Failures a client may make within the window; the next attempt is refused. Default 5. */
  maxFailures?: number;
  /** Length of the sliding window in milliseconds. Default 60 s. */
  windowMs?: number;
  now?: () => number;
}

/** Clients remembered at most; beyond this the longest-known ones are forgotten first. */
const MAX_CLIENTS = 10_000;

/**
 * Limits failed logins per client address: after `maxFailures` failures within `windowMs`, every
 * attempt from that address is refused with 429 (and `Retry-After`) until the oldest failure leaves
 * the window.
 *
 * @example
 * const limiter = failureLimiter();
 * limiter.assertAllowed(address); // throws HttpProblem 429 while the address is locked out
 * if (!ok) limiter.recordFailure(address);
 */
export function failureLimiter(options: FailureLimiterOptions = {}) {
  const maxFailures = options.maxFailures ?? 5;
  const windowMs = options.windowMs ?? 60_000;
  const now = options.now ?? Date.now;
  const failures = new Map<string, number[]>();

  function recent(client: string, at: number): number[] {
    const kept = (failures.get(client) ?? []).filter((time) => time > at - windowMs);
    if (kept.length === 0) failures.delete(client);
    else failures.set(client, kept);
    return kept;
  }

  return {
    /** @throws HttpProblem 429 when the client has used up its failures. */
    assertAllowed(client: string): void {
      if (!failures.has(client)) return; // every request with credentials asks: no clock, no list, when none failed
      const at = now();
      const kept = recent(client, at);
      if (kept.length < maxFailures) return;
      const seconds = Math.max(1, Math.ceil((kept[kept.length - maxFailures]! + windowMs - at) / 1000));
      throw new HttpProblem(429, `too many failed logins from this address; try again in ${seconds} s`, {
        headers: { 'retry-after': String(seconds) },
      });
    },
    recordFailure(client: string): void {
      const at = now();
      const kept = recent(client, at);
      failures.delete(client);
      failures.set(client, [...kept, at].slice(-maxFailures));
      if (failures.size > MAX_CLIENTS) failures.delete(failures.keys().next().value!);
    },
  };
}

export type FailureLimiter = ReturnType<typeof failureLimiter>;
