import { describe, expect, it } from 'vitest';
import { RecentlyUsed } from './recently-used.ts';

describe('what the most recently used devices keep', () => {
  it('keeps each device its own, and forgets the least recently used beyond the bound', () => {
    const recent = new RecentlyUsed<object>(2);
    const [a, b, c] = [{}, {}, {}];
    recent.of(a).set('engine', 'a');
    recent.of(b).set('engine', 'b');
    expect(recent.of(a).get('engine')).toBe('a');
    // c pushes out b, used less recently than a.
    recent.of(c).set('engine', 'c');
    expect(recent.of(a).get('engine')).toBe('a');
    expect(recent.of(c).get('engine')).toBe('c');
    expect(recent.of(b).size).toBe(0);
  });
});
