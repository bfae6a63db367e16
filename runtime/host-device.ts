import { statfs } from 'node:fs/promises';
import os from 'node:os';
import type { Device } from '../functions/core/device.ts';
import { rootedFiles } from './device/files.ts';

export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';

export interface HostDeviceOptions {
  /** Docker Engine API socket; default `/var/run/docker.sock`. */
  dockerSocket?: string;
}

/**
 * The real host as a Device: files from `/`, `uname(2)` and `statfs(2)` from Node, chutes from the
 * Docker Engine. The engine client is a separate bundle (`dist/engine.mjs`), loaded on first use.
 */
export function createHostDevice(options: HostDeviceOptions = {}): Device {
  const socketPath = options.dockerSocket ?? DEFAULT_DOCKER_SOCKET;
  let loading: Promise<typeof import('./engine/docker.ts') | null> | undefined;
  /** The engine client, loaded once on first use; null (logged) when its bundle cannot be loaded. */
  const engine = () =>
    (loading ??= import('./engine/docker.ts').catch((error: unknown) => {
      console.error('the container engine client (engine.mjs) cannot be loaded:', error);
      return null;
    }));
  return {
    ...rootedFiles('/'),
    async statfs(path) {
      try {
        const s = await statfs(path);
        return { type: s.type, bsize: s.bsize, blocks: s.blocks, bfree: s.bfree, bavail: s.bavail, files: s.files, ffree: s.ffree };
      } catch {
        return null;
      }
    },
    async uname() {
      return { sysname: os.type(), release: os.release(), version: os.version(), machine: os.machine() };
    },
    now: () => Date.now(),
    async containers() {
      const client = await engine();
      return client === null ? null : client.listChuteContainers(socketPath);
    },
    async containerStats(id) {
      const client = await engine();
      return client === null ? null : client.containerStats(socketPath, id);
    },
  };
}
