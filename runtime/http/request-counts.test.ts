import { describe, expect, it } from 'vitest';
import { DURATION_BUCKETS, requestCounter } from './request-counts.ts';

describe('requestCounter', () => {
  it('counts requests by method, route and status, each in the first bucket whose bound its time does not pass', () => {
    const requests = requestCounter();
    requests.count({ method: 'GET', route: '/api/v1/chutes', status: 200, seconds: 0.0004 });
    requests.count({ method: 'GET', route: '/api/v1/chutes', status: 200, seconds: 0.001 });
    requests.count({ method: 'GET', route: '/api/v1/chutes', status: 200, seconds: 0.03 });
    requests.count({ method: 'GET', route: '/api/v1/chutes', status: 304, seconds: 0.002 });
    requests.count({ method: 'DELETE', route: null, status: 405, seconds: 42 });
    const counts = requests.counts();
    expect(counts.map(({ buckets, seconds, ...key }) => key)).toEqual([
      { method: 'GET', route: '/api/v1/chutes', status: 200 },
      { method: 'GET', route: '/api/v1/chutes', status: 304 },
      { method: 'DELETE', route: null, status: 405 },
    ]);
    const bucketOf = (bound: number) => DURATION_BUCKETS.indexOf(bound);
    expect(counts[0]!.buckets).toHaveLength(DURATION_BUCKETS.length + 1);
    expect(counts[0]!.buckets[bucketOf(0.001)]).toBe(2);
    expect(counts[0]!.buckets[bucketOf(0.05)]).toBe(1);
    expect(counts[0]!.buckets.reduce((sum, n) => sum + n, 0)).toBe(3);
    expect(counts[0]!.seconds).toBeCloseTo(0.0314, 10);
    expect(counts[1]!.buckets[bucketOf(0.0025)]).toBe(1);
    expect(counts[2]!.buckets.at(-1)).toBe(1);
  });

  it('keeps one count per method, route and status however many requests come', () => {
    const requests = requestCounter();
    for (let i = 0; i < 10_000; i++) requests.count({ method: 'GET', route: '/api/v1/info/features', status: 200, seconds: i / 10_000 });
    expect(requests.counts()).toHaveLength(1);
    expect(requests.counts()[0]!.buckets.reduce((sum, n) => sum + n, 0)).toBe(10_000);
  });
});
