import { describe, expect, it, vi } from 'vitest';
import type { DeviceEvent } from '../../functions/core/device/index.ts';
import { eventBuffer } from './buffer.ts';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const applied = (success: boolean) => ({ kind: 'hostconfig.applied', success }) as const;

/** A buffer of `size` on a clock that moves a second a call, with `count` events published. */
function published(count: number, size?: number) {
  let now = T0;
  const events = eventBuffer(() => (now += 1000), size);
  for (let i = 0; i < count; i++) events.publish(applied(i % 2 === 0));
  return events;
}

const ids = (events: readonly DeviceEvent[]) => events.map((event) => event.id);

describe('eventBuffer', () => {
  it("numbers events from 1 and stamps each with the device's time", () => {
    const events = published(2);
    expect(events.followEvents(() => {}, 0).backlog).toEqual([
      { kind: 'hostconfig.applied', success: true, id: 1, time: '2026-11-21T12:00:01.000Z' },
      { kind: 'hostconfig.applied', success: false, id: 2, time: '2026-11-21T12:00:02.000Z' },
    ]);
  });

  it('stamps an event published with the time it happened at with that time, and still numbers it next', () => {
    const events = published(1);
    events.publish(applied(false), T0 - 60_000);
    expect(events.followEvents(() => {}, 0).backlog.at(-1)).toEqual({ kind: 'hostconfig.applied', success: false, id: 2, time: '2026-11-21T11:59:00.000Z' });
  });

  it('gives a follower every event published from then on, and none after it stopped', () => {
    const events = published(3);
    const got: DeviceEvent[] = [];
    const following = events.followEvents((event) => got.push(event));
    expect(following).toMatchObject({ backlog: [], missed: false });
    events.publish(applied(true));
    events.publish(applied(false));
    following.stop();
    events.publish(applied(true));
    expect(ids(got)).toEqual([4, 5]);
  });

  it('answers the events after the id a client saw last, without loss, while the buffer still holds them', () => {
    const events = published(10, 5);
    expect(events.followEvents(() => {}, 5)).toMatchObject({ missed: false });
    expect(ids(events.followEvents(() => {}, 5).backlog)).toEqual([6, 7, 8, 9, 10]);
    expect(ids(events.followEvents(() => {}, 8).backlog)).toEqual([9, 10]);
    expect(events.followEvents(() => {}, 10)).toMatchObject({ backlog: [], missed: false });
  });

  it('says events were missed when some after the id asked for left the buffer, and answers those it still holds', () => {
    const events = published(10, 5);
    const following = events.followEvents(() => {}, 3);
    expect(following.missed).toBe(true);
    expect(ids(following.backlog)).toEqual([6, 7, 8, 9, 10]);
  });

  it('says events were missed for an id beyond the last one, and answers every event kept: the device restarted and counts from 1 again', () => {
    const events = published(2);
    const following = events.followEvents(() => {}, 40);
    expect(following.missed).toBe(true);
    expect(ids(following.backlog)).toEqual([1, 2]);
    expect(published(0).followEvents(() => {}, 40)).toMatchObject({ backlog: [], missed: true });
  });

  it('keeps only the last `size` events however many are published', () => {
    const events = published(25_000, 100);
    const following = events.followEvents(() => {}, 0);
    expect(following.backlog).toHaveLength(100);
    expect(following.backlog[0]!.id).toBe(24_901);
    expect(following.backlog.at(-1)!.id).toBe(25_000);
  });

  it('still gives the event to the other followers when one throws, and logs it', () => {
    const events = published(0);
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const got: number[] = [];
    events.followEvents(() => {
      throw new Error('broken');
    });
    events.followEvents((event) => got.push(event.id));
    events.publish(applied(true));
    expect(got).toEqual([1]);
    expect(error).toHaveBeenCalledWith('an event follower failed:', expect.any(Error));
    error.mockRestore();
  });

  it('keeps the events of one device apart from those of another', () => {
    const a = published(3);
    const b = published(1);
    expect(ids(b.followEvents(() => {}, 0).backlog)).toEqual([1]);
    expect(ids(a.followEvents(() => {}, 0).backlog)).toEqual([1, 2, 3]);
  });
});
