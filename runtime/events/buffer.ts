import type { DeviceEvent, DeviceEventBody, DeviceEvents } from '../../functions/core/device/index.ts';

/**
 * How the device's own code reports an event: its sources, the change pipeline, the device
 * configuration. `at` is when it happened, in ms since the epoch (default now: the emulator's living
 * network tells what happened since it last caught up, each at its own time). Never throws.
 */
export type PublishEvent = (body: DeviceEventBody, at?: number) => void;

/** A device's events: followed by the stream (`DeviceEvents`), published by the device itself. */
export type EventBuffer = DeviceEvents & { publish: PublishEvent };

/** How many events a device keeps for clients that reconnect, unless told otherwise (`--events-buffer`). */
export const DEFAULT_EVENT_BUFFER = 1000;

/**
 * The events of one device: each published body gets the next id (1, 2, …, one run of the device)
 * and the device's time (or the time it is published with), goes to every follower at once, and is kept in a ring of the last `size`
 * events, from which `followEvents(listener, after)` answers what came after id `after`. `missed` is
 * true when events after `after` have left the ring, or when `after` is beyond the last id: the id is
 * of an earlier run (a device that restarted counts from 1 again), and every event kept is answered.
 * A follower that throws is logged; the others still get the event.
 *
 * @param now the device's clock, in ms since the epoch.
 * @example
 * const events = eventBuffer(Date.now);
 * events.publish({ kind: 'hostconfig.applied', success: true }); // id 1
 * events.followEvents(console.log, 0).backlog // [{ kind: 'hostconfig.applied', success: true, id: 1, time: '…' }]
 */
export function eventBuffer(now: () => number, size = DEFAULT_EVENT_BUFFER): EventBuffer {
  const ring: DeviceEvent[] = [];
  const listeners = new Set<(event: DeviceEvent) => void>();
  let last = 0;
  return {
    publish(body, at) {
      const event = { ...body, id: ++last, time: new Date(at ?? now()).toISOString() } as DeviceEvent;
      ring[(last - 1) % size] = event;
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          console.error('an event follower failed:', error);
        }
      }
    },
    followEvents(listener, after) {
      listeners.add(listener);
      const oldest = Math.max(1, last - size + 1);
      const backlog: DeviceEvent[] = [];
      if (after !== undefined) for (let id = after > last ? oldest : Math.max(after + 1, oldest); id <= last; id++) backlog.push(ring[(id - 1) % size]!);
      return { backlog, missed: after !== undefined && (after + 1 < oldest || after > last), stop: () => void listeners.delete(listener) };
    },
  };
}
