import { describe, expect, it } from 'vitest';
import { listedSessions, segmentsAt, sessionsIn, windowsOf, type Removals, type SessionWorld } from './sessions.ts';
import { DEFAULT_RATES } from './spec.ts';

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;

const WORLD: SessionWorld = {
  seed: 7,
  rates: { ...DEFAULT_RATES, joinsPerHour: 12, roamProbability: 0.5 },
  timeline: [
    { at: 30, station: '02:aa:00:00:00:01', join: 'lab/a' },
    { at: 90, station: '02:aa:00:00:00:01', roam: 'lab/b' },
    { at: 120, station: '02:aa:00:00:00:01', leave: true },
    { at: 600, station: '02:aa:00:00:00:01', join: 'lab/a' },
  ],
  aps: [
    { key: 'lab/a', recorded: [{ mac: '5c:f7:e6:1c:36:f7', startMs: -3_600_000 }] },
    { key: 'lab/b', recorded: [] },
  ],
};
const none: Removals = () => undefined;
const macsAt = (ap: string, t: number, world = WORLD, removals: Removals = none) =>
  segmentsAt(sessionsIn(world, t, t, removals).sessions, ap, t).map((s) => s.mac);

describe('the stays of the living network', () => {
  it('are the same for the same seed and time, whenever and however often they are asked; another seed draws other stations', () => {
    const at = 5 * 3_600_000;
    expect(sessionsIn(WORLD, at, at, none)).toEqual(sessionsIn(WORLD, at, at, none));
    expect(macsAt('lab/a', at)).toEqual(macsAt('lab/a', at));
    const other = macsAt('lab/a', at, { ...WORLD, seed: 8 });
    expect(other).not.toEqual(macsAt('lab/a', at));
  });

  it('has the recorded stations there at the start, and no other', () => {
    expect(macsAt('lab/a', 0)).toEqual(['5c:f7:e6:1c:36:f7']);
    expect(macsAt('lab/b', 0)).toEqual([]);
  });

  it('moves a timeline station as its steps say, and brings it back when it joins again', () => {
    expect(macsAt('lab/a', 29_999)).not.toContain('02:aa:00:00:00:01');
    expect(macsAt('lab/a', 30_000)).toContain('02:aa:00:00:00:01');
    expect(macsAt('lab/b', 90_000)).toContain('02:aa:00:00:00:01');
    expect(macsAt('lab/a', 90_000)).not.toContain('02:aa:00:00:00:01');
    expect([...macsAt('lab/a', 120_000), ...macsAt('lab/b', 120_000)]).not.toContain('02:aa:00:00:00:01');
    expect(macsAt('lab/a', 600_000)).toContain('02:aa:00:00:00:01');
  });

  it('draws stays of a bounded length that roam once at most, counters of a roam in a segment of their own', () => {
    const { maxMs } = windowsOf(WORLD.rates);
    const { sessions } = sessionsIn(WORLD, 0, DAY, none);
    const drawn = sessions.filter((session) => session[0]!.id.includes('#') && !session[0]!.id.startsWith('timeline'));
    expect(drawn.length).toBeGreaterThan(100);
    for (const session of drawn) {
      expect(session.length).toBeLessThanOrEqual(2);
      expect(session.at(-1)!.end - session[0]!.start).toBeLessThanOrEqual(maxMs);
      if (session.length === 2) expect(session[1]).toMatchObject({ index: 1, from: session[0]!.ap, start: session[0]!.end });
    }
    expect(drawn.filter((session) => session.length === 2).length).toBeGreaterThan(0);
  });

  it('ends a stay where a request disconnected the station, the rest of it with it; a later stay of the MAC is there', () => {
    const removals: Removals = (ap) => (ap === 'lab/a' ? new Map([['02:aa:00:00:00:01', 60_000]]) : undefined);
    expect(macsAt('lab/a', 59_999, WORLD, removals)).toContain('02:aa:00:00:00:01');
    expect(macsAt('lab/a', 60_000, WORLD, removals)).not.toContain('02:aa:00:00:00:01');
    // Its roam to lab/b at 90 s was part of the same stay.
    expect(macsAt('lab/b', 100_000, WORLD, removals)).not.toContain('02:aa:00:00:00:01');
    expect(macsAt('lab/a', 600_000, WORLD, removals)).toContain('02:aa:00:00:00:01');
    const cut = listedSessions(WORLD, removals).find((session) => session[0]!.mac === '02:aa:00:00:00:01')!;
    expect(cut).toEqual([expect.objectContaining({ ap: 'lab/a', end: 60_000, endsBy: 'removed' })]);
  });

  it('looks at as many slots for a time 30 days in as a day in, and no more at a minute in: the work does not grow with the time', () => {
    const examined = (t: number) => sessionsIn(WORLD, t, t, none).examined;
    const { maxMs, windowMs, slots } = windowsOf(WORLD.rates);
    const bound = (Math.ceil(maxMs / windowMs) + 2) * slots * WORLD.aps.length;
    expect(examined(30 * DAY)).toBe(examined(DAY));
    expect(examined(30 * DAY)).toBeLessThanOrEqual(bound);
    expect(examined(MINUTE)).toBeLessThanOrEqual(examined(30 * DAY));
  });
});
