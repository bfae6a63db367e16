import type { Device, DeviceSources, NetworkTarget } from '../../functions/core/device/index.ts';
import { IEEE80211_CLASS, radioPhys } from '../../functions/info/wifi.ts';
import { normalizePosix } from '../scenario/tree.ts';
import type { DeviceFault } from './device-fault.ts';

/** Where the kernel lists the network interfaces: a radio's own (`phy0-ap0`, as OpenWrt names them) go with it. */
const NET_CLASS = '/sys/class/net';
/** An interface of a radio as OpenWrt names it, `<phy>-<role><n>`: its phy. */
const RADIO_INTERFACE = /^(phy\d+)-/;

/**
 * The radio (a phy name such as `phy0`) a chute network is served on, or null for one on no radio:
 * the phy its host interface is named after (`phy1-ap1`), else the phy of the radio its chute's cache
 * reserved for it (`networks.<network>.radio`, such as `pci-wifi-0`, as `GET /api/v1/info/hardware`
 * lists the radios).
 */
export async function radioOfNetwork(device: DeviceSources, target: NetworkTarget): Promise<string | null> {
  const named = RADIO_INTERFACE.exec(target.hostInterface ?? '')?.[1];
  if (named !== undefined) return named;
  const networks = (await device.chute(target.chute))?.cache.networks;
  const radio = typeof networks === 'object' && networks !== null ? (networks as Record<string, { radio?: unknown }>)[target.network]?.radio : undefined;
  return typeof radio === 'string' ? ((await radioPhys(device)).get(radio) ?? null) : null;
}

/**
 * The device's files without the radios that `radio-gone` took away (`radio`, or every radio): their
 * entries of /sys/class/ieee80211 and /sys/class/net (the radio's interfaces, named after it) are not
 * listed, and nothing below them can be read or resolved, as on a device whose radio has gone; the
 * hardware record then lists the radios left.
 */
export function radioFiles(
  files: Pick<Device, 'readFile' | 'readDir' | 'realPath'>,
  active: () => readonly DeviceFault[],
): Pick<Device, 'readFile' | 'readDir' | 'realPath'> {
  /** Whether a phy is gone under the faults active now. */
  const gone = (phy: string) => active().some((fault) => fault.device === 'radio-gone' && (fault.radio === undefined || fault.radio === phy));
  /** Whether an entry of a folder is (below) a radio that is gone. */
  const hidden = (dir: string, name: string) =>
    (dir === IEEE80211_CLASS && gone(name)) || (dir === NET_CLASS && RADIO_INTERFACE.test(name) && gone(RADIO_INTERFACE.exec(name)![1]!));
  /** Whether a path is at or below a radio that is gone. */
  const under = (file: string) => {
    const parts = normalizePosix(file).split('/');
    return parts.length > 4 && hidden(parts.slice(0, 4).join('/'), parts[4]!);
  };
  const anyGone = () => active().some((fault) => fault.device === 'radio-gone');
  return {
    readFile: (file) => (anyGone() && under(file) ? Promise.resolve(null) : files.readFile(file)),
    realPath: (file) => (anyGone() && under(file) ? Promise.resolve(null) : files.realPath(file)),
    readDir(dir) {
      if (!anyGone()) return files.readDir(dir);
      const normal = normalizePosix(dir);
      return files.readDir(dir).then((names) => names.filter((name) => !hidden(normal, name)));
    },
  };
}
