import { statfs } from 'node:fs/promises';
import os from 'node:os';
import type { Device } from '../functions/core/device.ts';
import { rootedFiles } from './device/files.ts';

export interface HostDeviceOptions {
  /** Docker Engine API socket; default `/var/run/docker.sock`. */
  dockerSocket?: string;
}

/**
 * The real host as a Device: files from `/`, `uname(2)` and `statfs(2)` from Node, chutes from the
 * Docker Engine. The engine client is a separate bundle (`dist/engine.mjs`), loaded on first use.
 */
export function createHostDevice(options: HostDeviceOptions = {}): Device {
  const socketPath = options.dockerSocket ?? '/var/run/docker.sock';
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
      const engine = await import('./engine/docker.ts');
      return engine.listChuteContainers(socketPath);
    },
  };
}
