import type { DeviceServices } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import type { ResetGuard } from '../changes/reset-guard.ts';
import type { ConfigFacets } from '../device-config/index.ts';
import { loadedEngine, type EngineClient } from './host-parts.ts';
import { engineUnreachable } from '../engine/unreachable.ts';

/**
 * The host's services: the device configuration's (host configuration, provisioning, accounts), from
 * its bundle, refused during a factory reset where a device refuses them; the image store of the
 * engine; the factory reset; snapd over its socket (runtime/snapd/socket.ts, a bundle loaded on the first request for it).
 */
export function hostServices(options: {
  socketPath: string;
  /** snapd's socket (`--snapd-socket`). */
  snapdSocket: string;
  engine: EngineClient;
  /** The device-configuration bundle, loaded (the accounts need no start). */
  config: () => Promise<ConfigFacets>;
  /** The same, once started. */
  startedConfig: () => Promise<ConfigFacets>;
  guard: ResetGuard;
  reset: DeviceServices['factoryReset'];
}): DeviceServices {
  const { config, startedConfig, guard, engine, socketPath, snapdSocket } = options;
  return {
    hostConfig: {
      read: async () => (await config()).hostConfig.read(),
      pdconf: async () => (await startedConfig()).hostConfig.pdconf(),
      reloadPdconf: async () => (guard.refuse(), (await startedConfig()).hostConfig.reloadPdconf()),
    },
    provisioning: {
      status: async () => (await startedConfig()).provisioning.status(),
      provision: async (credentials) => (guard.refuse(), (await startedConfig()).provisioning.provision(credentials)),
      verifyCloudUser: async (token) => (await startedConfig()).provisioning.verifyCloudUser(token),
    },
    accounts: {
      passwd: async () => (await config()).accounts.passwd(),
      authorizedKeys: async (account) => (await config()).accounts.authorizedKeys(account),
      updateAuthorizedKeys: async (account, update) => (await config()).accounts.updateAuthorizedKeys(account, update),
    },
    factoryReset: () => guard.run(options.reset),
    snapd: async (request) => (await import('../snapd/socket.ts')).snapdOverSocket({ socketPath: snapdSocket })(request),
    async loadImage(archive) {
      const client = await loadedEngine(engine);
      try {
        return await client.loadImage(socketPath, archive);
      } catch (error) {
        const { statusCode, message } = error as { statusCode?: number; message: string };
        if (statusCode === undefined) throw engineUnreachable(message);
        if (statusCode < 500) throw new HttpProblem(422, 'the container engine refused the image archive', { errors: [{ path: 'body', message }] });
        throw new HttpProblem(502, `the container engine failed to load the image archive: ${message}`);
      }
    },
  };
}
