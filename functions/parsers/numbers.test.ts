import { describe, expect, it } from 'vitest';
import { decimal, fields, percent } from './numbers.ts';

describe('numbers', () => {
  it('rounds percentages to one decimal and gives 0 of nothing', () => {
    expect(percent(1, 3)).toBe(33.3);
    expect(percent(5, 0)).toBe(0);
  });

  it('reads decimals but not empty text', () => {
    expect(decimal('42')).toBe(42);
    expect(decimal('-0.5')).toBe(-0.5);
    expect(decimal('')).toBeNull();
    expect(decimal('1e3')).toBeNull();
  });

  it('splits fields at any run of whitespace', () => {
    expect(fields('  a\tb  c\n')).toEqual(['a', 'b', 'c']);
  });
});
