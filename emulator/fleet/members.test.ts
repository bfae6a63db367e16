import { describe, expect, it } from 'vitest';
import { fleetMember, memberById, type FleetSpec } from './members.ts';

const MIXED: FleetSpec = {
  size: 10_000,
  seed: 1,
  scenarios: [
    { scenario: 'default', share: 0.7 },
    { scenario: 'gl-ar150', share: 0.3 },
  ],
};

describe('the devices of a fleet', () => {
  it('are the same for the same seed, and others for another seed', () => {
    expect(fleetMember(MIXED, 42)).toEqual(fleetMember({ ...MIXED }, 42));
    expect(fleetMember({ ...MIXED, seed: 2 }, 42).seed).not.toBe(fleetMember(MIXED, 42).seed);
  });

  it('each have a seed of their own', () => {
    const seeds = new Set(Array.from({ length: MIXED.size }, (_, index) => fleetMember(MIXED, index).seed));
    expect(seeds.size).toBe(MIXED.size);
  });

  it('run the scenarios in about the shares of the fleet file', () => {
    const glinet = Array.from({ length: MIXED.size }, (_, index) => fleetMember(MIXED, index)).filter((device) => device.scenario === 'gl-ar150');
    expect(glinet.length / MIXED.size).toBeGreaterThan(0.28);
    expect(glinet.length / MIXED.size).toBeLessThan(0.32);
  });

  it('are found by their id, and only ids of the fleet name one', () => {
    expect(memberById(MIXED, 'router-9999')).toEqual(fleetMember(MIXED, 9999));
    for (const id of ['router-10000', 'router-01', 'router-', 'router-1e3', 'Router-1', 'router-1 ', 'device-1']) expect(memberById(MIXED, id)).toBeNull();
  });
});
