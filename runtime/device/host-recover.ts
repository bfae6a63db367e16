import { readdir } from 'node:fs/promises';
import type { ChangeRunner } from '../changes/runner.ts';
import type { HostParts } from './host-parts.ts';

/**
 * What the runtime does with the host once at start (`HostDevice.recover`): opens the change log, then,
 * when the chutes folder holds anything, loads the chute-lifecycle bundle to repair the chutes
 * (`HostChutes.repairAtStart`); then starts the device configuration without waiting for it.
 */
export async function hostRecover(host: HostParts, runner: ChangeRunner): Promise<void> {
  const interrupted = await runner.open();
  if ((await readdir(host.chutesDir).catch(() => [])).length > 0) {
    await (await host.chutesOnEngine())?.repairAtStart({ interrupted, annotate: runner.annotate, change: runner.change });
  }
  host.config.started().catch((error: unknown) => console.error('the device configuration cannot be started:', error));
}
