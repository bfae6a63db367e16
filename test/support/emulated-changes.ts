import type { ChangeRecord, Device } from '../../functions/core/device/index.ts';
import { emulatedClock } from '../../emulator/emulated-clock.ts';
import { emulatedChanges } from '../../emulator/scenario/changes.ts';
import type { MemoryDevice } from './memory-device.ts';

/**
 * A memory device whose changes run as the emulator runs them (`emulatedChanges`, without delay): a
 * host configuration through the device's own `hostConfig.perform`, the chutes' changes in memory.
 * No change does anything before `release()`: a test queues a second change while the first one is
 * surely still to run, then releases them, and they run in order.
 *
 * @example
 * const { device, release } = heldChanges(configDevice(routerHardware, { stored }));
 * const first = await device.submitChange(…); const second = await device.submitChange(…);
 * release();
 * await settledChange(device, second.id);
 */
export function heldChanges(base: MemoryDevice): { device: Device; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const device = emulatedChanges(
    {
      ...base,
      // A chute change reads the containers before it does anything.
      async containers() {
        await held;
        return base.containers();
      },
    },
    {
      delayMs: 0,
      sleep: emulatedClock().sleep,
      async applyHostConfig(request, note, id) {
        await held;
        return base.hostConfig.perform(request, note, id);
      },
      resetDevice: async () => {},
      releases: base.provisioning,
    },
  );
  return { device, release };
}

/** Waits until change `id` is `succeeded` or `failed` and answers it; the test's own timeout is the deadline. */
export async function settledChange(device: Pick<Device, 'change'>, id: number): Promise<ChangeRecord> {
  for (;;) {
    const change = await device.change(id);
    if (change?.state === 'succeeded' || change?.state === 'failed') return change;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
