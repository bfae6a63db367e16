import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { telemetrySettings } from '../../functions/config/host-config.ts';
import { CHANGES_DIR, markNextId, NEXT_ID_FILE } from '../changes/log.ts';
import type { HostConfigService } from './host-config.ts';
import type { ProvisioningService } from './provisioning.ts';

const remove = (dir: string, entry: string) => rm(path.join(dir, entry), { recursive: true, force: true });

export interface FactoryResetOptions {
  /** The runtime's state dir: emptied, then made as a fresh install has it. */
  stateDir: string;
  /** Removes every chute container from the engine (not the stored chutes); answers how many chutes were installed. Throws when it cannot. */
  removeChuteContainers(): Promise<number>;
  hostConfig: HostConfigService;
  provisioning: ProvisioningService;
  /** Makes what the runtime makes at its first start besides the host configuration: its token secret, the change log folder (which may exist). */
  prepareState(): Promise<void>;
}

/**
 * The runtime's factory reset, run while no change runs (`ChangeRunner.exclusive`): removes the chute
 * containers (a failure stops the reset before anything else changed), stops telemetry and forgets
 * the provisioning, empties the state dir (chutes, changes, host configuration, credentials), makes
 * the files a first start makes, then renders and applies the default host configuration. Afterwards
 * the state dir holds what a fresh install holds after its first start, but for the change log's
 * high-water mark (`<stateDir>/changes/next-id`, written before the records go and kept): the ids
 * of new changes go on above the old ones, so a client polling an old id is answered 404, never
 * about another change.
 *
 * @example
 * await factoryReset({ stateDir: '/var/lib/chutebox', removeChuteContainers, hostConfig, provisioning, prepareState })
 * // { success: true, message: 'factory reset: removed 2 chutes, …' }
 */
export async function factoryReset(options: FactoryResetOptions): Promise<{ success: boolean; message: string }> {
  const chutes = await options.removeChuteContainers();
  await options.provisioning.clear();
  const changes = path.join(options.stateDir, CHANGES_DIR);
  await markNextId(changes);
  for (const entry of await readdir(options.stateDir)) if (entry !== CHANGES_DIR) await remove(options.stateDir, entry);
  for (const entry of await readdir(changes)) if (entry !== NEXT_ID_FILE) await remove(changes, entry);
  await options.prepareState();
  await options.hostConfig.reset();
  options.provisioning.configure(telemetrySettings(await options.hostConfig.current()));
  const removed = chutes === 1 ? '1 chute' : `${chutes} chutes`;
  return {
    success: true,
    message: `factory reset: removed ${removed}, the provisioning and the runtime's credentials; the default host configuration is applied`,
  };
}
