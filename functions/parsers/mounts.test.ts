import { describe, expect, it } from 'vitest';
import { fsStats } from '../../test/support/info-devices.ts';
import { distinctFileSystems, parseMounts, storageMounts, unescapeOctal } from './mounts.ts';

const OPENWRT = `/dev/root /rom squashfs ro,relatime,errors=continue 0 0
proc /proc proc rw,nosuid,nodev,noexec,noatime 0 0
sysfs /sys sysfs rw,nosuid,nodev,noexec,noatime 0 0
tmpfs /tmp tmpfs rw,nosuid,nodev,noatime 0 0
/dev/mtdblock10 /overlay jffs2 rw,noatime 0 0
overlayfs:/overlay / overlay rw,noatime,lowerdir=/,upperdir=/overlay/upper,workdir=/overlay/work 0 0
tmpfs /dev tmpfs rw,nosuid,noexec,noatime,size=512k,mode=755 0 0
devpts /dev/pts devpts rw,nosuid,noexec,noatime,mode=600,ptmxmode=000 0 0
debugfs /sys/kernel/debug debugfs rw,noatime 0 0
/dev/sda1 /mnt/My\\040Drive\\011(old)\\134x vfat rw,relatime 0 0
`;

describe('/proc/mounts', () => {
  it('decodes octal escapes in names', () => {
    const mounts = parseMounts(OPENWRT);
    expect(mounts.at(-1)).toEqual({ device: '/dev/sda1', mountpoint: '/mnt/My Drive\t(old)\\x', fstype: 'vfat', options: ['rw', 'relatime'] });
    expect(unescapeOctal('/mnt/a\\012b')).toBe('/mnt/a\nb');
  });

  it('keeps storage and drops pseudo filesystems and the tmpfs at /dev', () => {
    expect(storageMounts(parseMounts(OPENWRT)).map((m) => `${m.fstype} ${m.mountpoint}`)).toEqual([
      'squashfs /rom',
      'tmpfs /tmp',
      'jffs2 /overlay',
      'overlay /',
      'vfat /mnt/My Drive\t(old)\\x',
    ]);
  });

  it('keeps one entry per mount point: the last mount wins', () => {
    const stacked = 'rootfs / rootfs rw 0 0\n/dev/root / squashfs ro 0 0\ntmpfs /run tmpfs rw 0 0\noverlayfs:/overlay / overlay rw 0 0\n';
    expect(storageMounts(parseMounts(stacked)).map((m) => `${m.device} ${m.mountpoint}`)).toEqual(['tmpfs /run', 'overlayfs:/overlay /']);
  });

  it('drops /dev/shm, cgroup trees and container namespaces on a Debian host', () => {
    const debian =
      'tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0\ntmpfs /sys/fs/cgroup tmpfs ro,nosuid,nodev,noexec,mode=755 0 0\n' +
      'cgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\nnsfs /run/docker/netns/default nsfs rw 0 0\n/dev/sda2 /home ext4 rw 0 0\n';
    expect(storageMounts(parseMounts(debian)).map((m) => m.mountpoint)).toEqual(['/home']);
  });

  it('drops the root layers the container engine mounts for each container', () => {
    const docker =
      '/dev/sda2 /opt/docker ext4 rw 0 0\n' +
      'overlay /opt/docker/overlay2/0c4f5d3e/merged overlay rw,lowerdir=/opt/docker/overlay2/l/A,upperdir=/opt/docker/overlay2/0c4f5d3e/diff 0 0\n' +
      'overlay /var/lib/containers/storage/overlay/9a1b/merged overlay rw 0 0\n';
    expect(storageMounts(parseMounts(docker)).map((m) => m.mountpoint)).toEqual(['/opt/docker']);
  });

  it('keeps one view of a file system: a folder bind-mounted onto itself with the same statfs is left out', () => {
    const [root, docker, home] = parseMounts('/dev/sda2 / ext4 rw 0 0\n/dev/sda2 /var/lib/docker ext4 rw 0 0\n/dev/sda3 /home ext4 rw 0 0\n');
    const stats = fsStats(60_000_000, 40_000_000, 37_000_000);
    const kept = distinctFileSystems([
      { mount: root!, stats },
      { mount: docker!, stats: { ...stats } },
      { mount: home!, stats: { ...stats } },
    ]);
    expect(kept.map((m) => m.mount.mountpoint)).toEqual(['/', '/home']);
  });

  it('keeps mounts of one device whose statfs differ in any field, such as two tmpfs', () => {
    const [run, tmp, again] = parseMounts('tmpfs /run tmpfs rw 0 0\ntmpfs /tmp tmpfs rw 0 0\ntmpfs /mnt/tmp tmpfs rw 0 0\n');
    const stats = fsStats(500_000, 499_000, 499_000);
    const kept = distinctFileSystems([
      { mount: run!, stats },
      { mount: tmp!, stats: fsStats(100_000, 99_000, 99_000) },
      { mount: again!, stats: { ...stats, ffree: stats.ffree - 1 } },
    ]);
    expect(kept.map((m) => m.mount.mountpoint)).toEqual(['/run', '/tmp', '/mnt/tmp']);
  });
});
