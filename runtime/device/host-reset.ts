import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { DeviceServices } from '../../functions/core/device/index.ts';
import { prepareAuth } from '../auth/local.ts';
import { CHANGES_DIR } from '../changes/log.ts';
import type { ChangeRunner } from '../changes/runner.ts';
import type { HostParts } from './host-parts.ts';
import { engineUnreachable, RESET_WITHOUT_ENGINE } from '../engine/unreachable.ts';

/**
 * The host's factory reset: once every change is final, the device configuration's reset
 * (`ConfigFacets.factoryReset`) with the chutes' containers removed from the engine and the runtime's
 * state made again; the runner reads its log again after it.
 */
export function hostFactoryReset(host: HostParts, runner: ChangeRunner): DeviceServices['factoryReset'] {
  return async () => {
    const facets = await host.config.started();
    return runner.exclusive(
      () =>
        facets.factoryReset({
          removeChuteContainers: () => removeChuteContainers(host),
          async prepareState() {
            await prepareAuth(host.stateDir);
            // What `runner.open()` makes at start (the reset keeps it, emptied but for the next change id); the runner reads it again after the reset.
            await mkdir(path.join(host.stateDir, CHANGES_DIR), { recursive: true, mode: 0o700 });
          },
        }),
      true,
    );
  };
}

/** Removes every container that carries the chute label; answers how many chutes were stored. */
async function removeChuteContainers({ chutes, chutesOnEngine }: HostParts): Promise<number> {
  const stored = (await chutes.chuteNames()).length;
  if ((await (await chutesOnEngine())?.removeContainers()) === true) return stored;
  if (stored > 0) throw engineUnreachable(RESET_WITHOUT_ENGINE);
  return 0;
}
