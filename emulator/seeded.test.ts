import { describe, expect, it } from 'vitest';
import { draw, exponential, lognormal } from './seeded.ts';

describe('draws from a seed', () => {
  it('gives the same number for the same seed and parts, whatever was drawn before', () => {
    const first = draw(7, 'station', 3);
    for (let i = 0; i < 100; i++) draw(7, 'other', i);
    expect(draw(7, 'station', 3)).toBe(first);
  });

  it('gives the numbers it gave in earlier releases: a seed makes the same fleet, stations and faults after an upgrade', () => {
    expect(draw(7, 'station', 3, 'session', 12)).toBe(0.05893748815058719);
    expect(draw(1, 'idle', 'router-42/wifi', 1700000)).toBe(0.32358430184183895);
    expect(draw(2 ** 40 + 3, 'mac', 'é', -1.5)).toBe(0.2469843882150795);
  });

  it('gives other numbers for another seed, other parts, or the same text split otherwise', () => {
    const base = draw(7, 'station', 3);
    expect(draw(8, 'station', 3)).not.toBe(base);
    expect(draw(7, 'station', 4)).not.toBe(base);
    expect(draw(7, 'station3')).not.toBe(base);
    expect(draw(7, 'station', '3')).not.toBe(base);
    expect(draw(7 + 2 ** 32, 'station', 3)).not.toBe(base);
  });

  it('spreads draws evenly over [0, 1)', () => {
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 20_000; i++) {
      const u = draw(1, 'request', i);
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
      buckets[Math.floor(u * 10)]! += 1;
    }
    for (const count of buckets) expect(Math.abs(count - 2000)).toBeLessThan(200);
  });

  it('makes exponential draws with the mean asked and lognormal draws with the median asked', () => {
    const n = 20_000;
    let sum = 0;
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      sum += exponential(60, draw(3, 'gap', i));
      samples.push(lognormal(200, 0.3, draw(3, 'a', i), draw(3, 'b', i)));
    }
    expect(sum / n).toBeGreaterThan(57);
    expect(sum / n).toBeLessThan(63);
    samples.sort((a, b) => a - b);
    expect(samples[n / 2]!).toBeGreaterThan(195);
    expect(samples[n / 2]!).toBeLessThan(205);
  });
});
