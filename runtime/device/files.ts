import { readFile, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Device } from '../../functions/core/device/index.ts';

/** Raw files are small, even `/proc/cpuinfo` of a server with many cores; anything larger is cut here. */
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * The file part of a Device, served from a root folder: `/` on the device, a scenario folder in the
 * emulator. Both read through this one implementation, so a scenario answers exactly as the host did.
 * Paths never leave the root: `..` segments and links that point outside it read as missing.
 *
 * @example
 * const files = rootedFiles('/');                        // the real host
 * const files = rootedFiles('fixtures/scenarios/default'); // a recording
 * await files.readFile('/proc/cpuinfo');
 */
export function rootedFiles(root: string): Pick<Device, 'readFile' | 'readDir' | 'realPath'> {
  const base = path.resolve(root);

  /** The host path of a device path, or null when it would leave the root. */
  function locate(devicePath: string): string | null {
    if (!devicePath.startsWith('/') || devicePath.includes('\0')) return null;
    if (devicePath.split('/').includes('..')) return null;
    return path.join(base, devicePath);
  }

  /** The device path of a host path inside the root, or null when it is outside. */
  function unlocate(hostPath: string): string | null {
    if (base === path.sep) return hostPath;
    if (hostPath === base) return '/';
    return hostPath.startsWith(base + path.sep) ? hostPath.slice(base.length) : null;
  }

  async function inside(devicePath: string): Promise<string | null> {
    const located = locate(devicePath);
    if (located === null) return null;
    try {
      const resolved = await realpath(located);
      return unlocate(resolved) === null ? null : resolved;
    } catch {
      return null;
    }
  }

  return {
    async readFile(devicePath) {
      const file = await inside(devicePath);
      if (file === null) return null;
      try {
        const data = await readFile(file);
        return data.subarray(0, MAX_FILE_BYTES).toString('utf8');
      } catch {
        return null;
      }
    },
    async readDir(devicePath) {
      const dir = await inside(devicePath);
      if (dir === null) return [];
      try {
        return (await readdir(dir)).sort();
      } catch {
        return [];
      }
    },
    async realPath(devicePath) {
      const resolved = await inside(devicePath);
      return resolved === null ? null : unlocate(resolved);
    },
  };
}
