import { statfs } from 'node:fs/promises';
import os from 'node:os';
import type { DeviceSources, Settings } from '../../functions/core/device/index.ts';
import { isUnixSocket } from '../engine/socket.ts';
import { watchedPath } from '../state/watched-file.ts';
import { sharedRuns } from '../tools/shared-run.ts';
import { rootedFiles } from './files.ts';
import type { EngineClient } from './host-parts.ts';

/**
 * The host's raw sources: files from `/`, `statfs(2)` and `uname(2)` from Node, the programs on the
 * PATH, the engine's JSON (concurrent lists share one request; no socket, no engine, and the client is
 * not even loaded), the chutes of the state dir, the settings loaded at start.
 */
export function hostSources(options: {
  socketPath: string;
  chutes: Pick<DeviceSources, 'chuteNames' | 'chute'>;
  engine: EngineClient;
  settings: (() => Settings) | undefined;
}): DeviceSources {
  const { socketPath, engine } = options;
  /**
   * Whether an engine listens on the socket: a stat, made again only after the socket's folder
   * changed (the engine started or stopped).
   */
  const engineListening = watchedPath(socketPath, isUnixSocket);
  /** The engine's list of chute containers in flight, shared by concurrent `containers()` calls. */
  const containerLists = sharedRuns<Record<string, unknown>[] | null>();
  /**
   * The known programs on the runtime's PATH, looked up on the first call (not at start, and with the
   * chute-lifecycle bundle's code, where the chute networks that need them are built) and kept for the
   * runtime's life: later calls answer this same promise, with no file access (features asks on every
   * request). A program installed meanwhile shows after a restart of `chutebox serve`.
   */
  let programsFound: Promise<readonly string[]> | undefined;
  return {
    ...rootedFiles('/'),
    ...options.chutes,
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
    programs: () => (programsFound ??= engine().then((client) => client?.programsOnPath(process.env.PATH ?? '') ?? [])),
    now: () => Date.now(),
    containers: async () =>
      (await engineListening())
        ? containerLists.run(socketPath, async () => {
            const client = await engine();
            return client === null ? null : client.listChuteContainers(socketPath);
          })
        : null,
    async containerStats(id) {
      const client = await engine();
      return client === null ? null : client.containerStats(socketPath, id);
    },
    settings: async () => options.settings?.() ?? {},
  };
}
