import { describe, expect, it } from 'vitest';
import { pathParameters } from './paths.ts';

describe('pathParameters', () => {
  it('lists the parameters of a route path in order', () => {
    expect(pathParameters('/api/v1/chutes/:chute/networks/:network/stations/:mac')).toEqual(['chute', 'network', 'mac']);
    expect(pathParameters('/api/v1/chutes')).toEqual([]);
  });
});
