import { describe, expect, it } from 'vitest';
import { parseLoadavg } from './loadavg.ts';

describe('/proc/loadavg', () => {
  it('reads the 1, 5 and 15 minute load averages', () => {
    expect(parseLoadavg('0.20 0.18 0.12 1/80 11206\n')).toEqual([0.2, 0.18, 0.12]);
  });

  it('gives null for an empty or malformed file', () => {
    expect(parseLoadavg('')).toBeNull();
    expect(parseLoadavg('0.20 x 0.12\n')).toBeNull();
  });
});
