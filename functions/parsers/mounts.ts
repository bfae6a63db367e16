import type { FsStats } from '../core/device/index.ts';
import { fields } from './numbers.ts';

/** One line of /proc/mounts. */
export interface Mount {
  device: string;
  mountpoint: string;
  fstype: string;
  options: string[];
}

/**
 * Parses /proc/mounts (`device mountpoint fstype options dump pass`). The kernel writes space, tab,
 * newline and backslash in names as octal escapes (`\040`, `\011`, `\012`, `\134`); they are decoded.
 *
 * @example
 * parseMounts('/dev/sdb1 /media/usb\\040disk vfat rw,relatime 0 0\n')
 * // [{ device: '/dev/sdb1', mountpoint: '/media/usb disk', fstype: 'vfat', options: ['rw', 'relatime'] }]
 */
export function parseMounts(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const [device, mountpoint, fstype, options] = fields(line);
    if (device === undefined || mountpoint === undefined || fstype === undefined) continue;
    mounts.push({
      device: unescapeOctal(device),
      mountpoint: unescapeOctal(mountpoint),
      fstype: unescapeOctal(fstype),
      options: options === undefined ? [] : unescapeOctal(options).split(','),
    });
  }
  return mounts;
}

/**
 * Decodes the kernel's `\ooo` escapes.
 *
 * @example
 * unescapeOctal('/mnt/my\\040files') // '/mnt/my files'
 */
export function unescapeOctal(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/**
 * Filesystems that hold no storage: kernel interfaces, control and pseudo filesystems.
 * Everything else (ext4, overlay, squashfs, jffs2, ubifs, tmpfs, vfat, btrfs, xfs, f2fs, nfs, …) is
 * storage.
 */
const PSEUDO_FILESYSTEMS: ReadonlySet<string> = new Set([
  'autofs',
  'binfmt_misc',
  'bpf',
  'cgroup',
  'cgroup2',
  'configfs',
  'cpuset',
  'debugfs',
  'devpts',
  'devtmpfs',
  'efivarfs',
  'fusectl',
  'hugetlbfs',
  'mqueue',
  'nsfs',
  'proc',
  'pstore',
  'ramfs',
  'rpc_pipefs',
  'securityfs',
  'selinuxfs',
  'sysfs',
  'tracefs',
]);

/**
 * Mount points under these are kernel interface trees, never storage. This also drops the tmpfs at
 * `/dev` (OpenWrt), `/dev/shm` (POSIX shared memory, a view of RAM already counted in the memory
 * figures) and `/sys/fs/cgroup` (cgroup v1 hosts), while `/tmp` and `/run` stay.
 */
const KERNEL_TREES = ['/dev', '/proc', '/sys'];

/**
 * A container's root file system as the engine mounts it (`…/overlay2/<id>/merged` for Docker,
 * `…/overlay/<id>/merged` for containers/storage): a view of the engine's data disk, not storage of its own.
 */
function isContainerLayer(mount: Mount): boolean {
  return mount.fstype === 'overlay' && mount.mountpoint.endsWith('/merged');
}

/**
 * The mounts that hold storage, one per mount point: pseudo filesystems, mounts inside /dev, /proc
 * and /sys, and container root layers are dropped, and when a mount point is mounted more than once the last mount (the one on
 * top, which a path there reaches) wins, in the place of the last mount.
 *
 * @example
 * storageMounts(parseMounts('rootfs / rootfs rw 0 0\nproc /proc proc rw 0 0\noverlayfs:/overlay / overlay rw 0 0\n'))
 * // [{ device: 'overlayfs:/overlay', mountpoint: '/', fstype: 'overlay', options: ['rw'] }]
 */
export function storageMounts(mounts: Mount[]): Mount[] {
  const byMountpoint = new Map<string, Mount>();
  for (const mount of mounts) {
    byMountpoint.delete(mount.mountpoint);
    byMountpoint.set(mount.mountpoint, mount);
  }
  return [...byMountpoint.values()].filter(
    (mount) =>
      !PSEUDO_FILESYSTEMS.has(mount.fstype) &&
      !isContainerLayer(mount) &&
      !KERNEL_TREES.some((tree) => mount.mountpoint === tree || mount.mountpoint.startsWith(`${tree}/`)),
  );
}

/** A mount with the `statfs(2)` answer for its mount point. */
export interface MeasuredMount {
  mount: Mount;
  stats: FsStats;
}

/**
 * One entry per file system: a mount is left out when an earlier kept mount has the same device and
 * fstype and a statfs answer identical in every field, i.e. it is a second view of that file system,
 * such as the bind mount of a folder onto itself that dockerd makes of its data root
 * (`/dev/sda2 /var/lib/docker ext4` beside `/dev/sda2 / ext4`). Distinct file systems that share a
 * device name, such as two tmpfs, differ in their statfs and all stay.
 *
 * @example
 * distinctFileSystems([{ mount: root, stats }, { mount: dockerRoot, stats }]) // [{ mount: root, stats }]
 */
export function distinctFileSystems<T extends MeasuredMount>(measured: T[]): T[] {
  const kept: T[] = [];
  for (const entry of measured) {
    const repeats = kept.some(
      (earlier) => earlier.mount.device === entry.mount.device && earlier.mount.fstype === entry.mount.fstype && sameStats(earlier.stats, entry.stats),
    );
    if (!repeats) kept.push(entry);
  }
  return kept;
}

function sameStats(a: FsStats, b: FsStats): boolean {
  const keys = Object.keys(a) as (keyof FsStats)[];
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
