import { describe, expect, it } from 'vitest';
import { parseUptime } from './uptime.ts';

describe('/proc/uptime', () => {
  it('reads seconds since boot and idle seconds', () => {
    expect(parseUptime('350735.47 234388.90\n')).toEqual({ uptime: 350735.47, idle: 234388.9 });
  });

  it('gives null for an empty or malformed file', () => {
    expect(parseUptime('')).toBeNull();
    expect(parseUptime('up 5 days\n')).toBeNull();
  });
});
