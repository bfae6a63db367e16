import type { Device, FsStats, Uname } from '../functions/core/device.ts';

/** What a test device holds; everything is optional and missing means "the device lacks it". */
export interface MemoryDeviceSpec {
  /** Device path → contents, e.g. `{ '/proc/meminfo': 'MemTotal: 1024 kB\n' }`. */
  files?: Record<string, string>;
  /** Device path → what `realPath` answers for it, e.g. a radio's `device` link. */
  links?: Record<string, string>;
  statfs?: Record<string, FsStats>;
  uname?: Partial<Uname>;
  now?: number;
  /** Entries of `GET /containers/json` (chutes only); null (the default) means no container engine. */
  containers?: Record<string, unknown>[] | null;
  /** Container id → body of `GET /containers/<id>/stats?stream=false`; a missing id has no stats. */
  stats?: Record<string, Record<string, unknown>>;
}

/**
 * A Device held in memory, for handler tests on hand-written raw sources. Directory listings are
 * derived from the file and link paths, as a file system would show them.
 *
 * @example
 * const device = memoryDevice({ files: { '/proc/uptime': '12.5 30.1\n' } });
 */
export function memoryDevice(spec: MemoryDeviceSpec = {}): Device {
  const files = spec.files ?? {};
  const links = spec.links ?? {};
  const paths = [...Object.keys(files), ...Object.keys(links)];
  return {
    async readFile(path) {
      return files[path] ?? null;
    },
    async readDir(path) {
      const prefix = path.endsWith('/') ? path : `${path}/`;
      const names = new Set<string>();
      for (const p of paths) if (p.startsWith(prefix)) names.add(p.slice(prefix.length).split('/')[0]!);
      return [...names].sort();
    },
    async realPath(path) {
      if (path in links) return links[path]!;
      return path in files || paths.some((p) => p.startsWith(`${path}/`)) ? path : null;
    },
    async statfs(path) {
      return spec.statfs?.[path] ?? null;
    },
    async uname() {
      return { sysname: 'Linux', release: '6.1.0', version: '#1 SMP', machine: 'x86_64', ...spec.uname };
    },
    now() {
      return spec.now ?? Date.UTC(2026, 10, 21, 12, 0, 0);
    },
    async containers() {
      return spec.containers ?? null;
    },
    async containerStats(id) {
      const stats = spec.stats ?? {};
      return spec.containers != null && Object.hasOwn(stats, id) ? stats[id]! : null;
    },
  };
}
