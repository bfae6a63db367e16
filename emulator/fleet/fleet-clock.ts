import { emulatedClock, type ClockReading, type EmulatedClock } from '../emulated-clock.ts';
import type { Fleet } from './fleet.ts';

/**
 * The fleet's clock (`/_chutebox/clock` of a fleet): a reading every device built from now on starts
 * at, and a set (an advance, a new time, a speed) applied to it and to every device built or held, each
 * of which keeps its own clock (`/devices/<id>/_chutebox/clock`).
 *
 * @example
 * const clock = fleetClock(() => fleet);
 * await clock.set({ advanceMs: 600_000 }); // ten minutes later on every device
 */
export function fleetClock(fleet: () => Fleet): Pick<EmulatedClock, 'read' | 'set' | 'reset' | 'restore'> {
  const reference = emulatedClock();
  return {
    read: () => reference.read(),
    async set(patch: unknown, at?: string): Promise<ClockReading> {
      // Checked by the fleet's own clock first: a patch it refuses reaches no device.
      const reading = await reference.set(patch, at);
      // Every clock at once, those of the devices held as their states too (each is built again at its
      // own time): a device that leaves meanwhile is held at its clock as set.
      const held = [...fleet().heldDevices().values()].map((device) => device.clock.set(patch, at));
      const built = fleet()
        .builtDevices()
        .map(async (made) => (await made).scenario.clock.set(patch, at));
      await Promise.all([...held, ...built]);
      return reading;
    },
    reset: () => reference.reset(),
    /** The fleet's own reading set, reaching no device: a fleet's restore gives each device its own clock. */
    restore: (reading) => reference.restore(reading),
  };
}
