import type { DeviceSources } from '../core/device/index.ts';
import { hexId, sysfsLine } from '../parsers/sysfs.ts';
import type { WifiDevice } from './schemas.ts';

/** Where the kernel lists its wireless radios (one `phyN` entry per radio). */
export const IEEE80211_CLASS = '/sys/class/ieee80211';

interface Radio {
  phy: string;
  subsystem: string;
  name: string;
  macAddr: string;
  vendorId: string | null;
  deviceId: string | null;
}

/**
 * The device's radios, as the hardware record lists them. For each /sys/class/ieee80211/<phy>:
 * - slot: `<subsystem>/<device>`, the bus (basename of the device's `subsystem` link) and the device
 *   directory the phy's `device` link resolves to, e.g. `pci/0000:04:00.0`, `usb/1-1:1.0`,
 *   `sdio/mmc1:0001:1`, `platform/18100000.wmac` (a radio built into the SoC);
 * - vendorId/deviceId: PCI and SDIO devices have `vendor`/`device` files; a USB radio's `device` is the
 *   interface, whose parent holds `idVendor`/`idProduct`; SoC radios have no ids (null);
 * - macAddr: the phy's `macaddress` (else the first of its `addresses`), or '' when neither is readable;
 * - id: `<subsystem>-wifi-<n>`, n counting from 0 per subsystem, in natural slot order.
 * A phy whose `device` link cannot be resolved names no hardware and is left out. Never throws for a
 * missing file.
 *
 * @example
 * await readRadios(device)
 * // [{ id: 'pci-wifi-0', slot: 'pci/0000:04:00.0', macAddr: '04:f0:21:aa:bb:01', vendorId: '0x168c', deviceId: '0x003c' }]
 */
export async function readRadios(device: DeviceSources): Promise<WifiDevice[]> {
  return (await listRadios(device)).map(({ radio }) => radio);
}

/**
 * The kernel's name of each radio (`phy0`), by its id: what `iw phy` and `/sys/class/ieee80211` call it.
 *
 * @example
 * await radioPhys(device) // Map { 'pci-wifi-0' => 'phy0', 'pci-wifi-1' => 'phy1' }
 */
export async function radioPhys(device: DeviceSources): Promise<Map<string, string>> {
  return new Map((await listRadios(device)).map(({ radio, phy }) => [radio.id, phy]));
}

/** Each radio as the hardware record lists it, with its phy, in id order. */
async function listRadios(device: DeviceSources): Promise<{ radio: WifiDevice; phy: string }[]> {
  const phys = await device.readDir(IEEE80211_CLASS);
  const radios = (await Promise.all(phys.map((phy) => readRadio(device, phy)))).filter((radio) => radio !== null);
  radios.sort((a, b) => compareText(a.subsystem, b.subsystem) || compareDeviceNames(a.name, b.name));
  const counts = new Map<string, number>();
  return radios.map((radio) => {
    const n = counts.get(radio.subsystem) ?? 0;
    counts.set(radio.subsystem, n + 1);
    return {
      radio: {
        id: `${radio.subsystem}-wifi-${n}`,
        slot: `${radio.subsystem}/${radio.name}`,
        macAddr: radio.macAddr,
        vendorId: radio.vendorId,
        deviceId: radio.deviceId,
      },
      phy: radio.phy,
    };
  });
}

async function readRadio(device: DeviceSources, phy: string): Promise<Radio | null> {
  const phyPath = `${IEEE80211_CLASS}/${phy}`;
  const devicePath = await device.realPath(`${phyPath}/device`);
  if (devicePath === null) return null;
  const subsystemPath = await device.realPath(`${devicePath}/subsystem`);
  const subsystem = subsystemPath === null ? 'unknown' : basename(subsystemPath);
  const [ids, macAddr] = await Promise.all([readIds(device, subsystem, devicePath), readMacAddress(device, phyPath)]);
  return { phy, subsystem, name: basename(devicePath), macAddr, ...ids };
}

async function readIds(device: DeviceSources, subsystem: string, devicePath: string): Promise<Pick<Radio, 'vendorId' | 'deviceId'>> {
  const [vendor, product] =
    subsystem === 'usb' ? [`${parent(devicePath)}/idVendor`, `${parent(devicePath)}/idProduct`] : [`${devicePath}/vendor`, `${devicePath}/device`];
  const [vendorId, deviceId] = await Promise.all([device.readFile(vendor), device.readFile(product)]);
  return { vendorId: hexId(vendorId), deviceId: hexId(deviceId) };
}

async function readMacAddress(device: DeviceSources, phyPath: string): Promise<string> {
  const address = sysfsLine(await device.readFile(`${phyPath}/macaddress`)) ?? sysfsLine(await device.readFile(`${phyPath}/addresses`));
  return address?.toLowerCase() ?? '';
}

/**
 * Orders device names the way a person reads them: split at `-`, `:` and `.`, hexadecimal fields
 * compare by value (`0000:0a:00.0` after `0000:09:00.0`, `1-10:1.0` after `1-2:1.0`), other fields
 * as text.
 *
 * @example
 * ['1-10:1.0', '1-2:1.0'].sort(compareDeviceNames) // ['1-2:1.0', '1-10:1.0']
 */
export function compareDeviceNames(a: string, b: string): number {
  const left = a.toLowerCase().split(/[-:.]/);
  const right = b.toLowerCase().split(/[-:.]/);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const order = compareFields(left[i]!, right[i]!);
    if (order !== 0) return order;
  }
  return left.length - right.length || compareText(a, b);
}

function compareFields(a: string, b: string): number {
  if (/^[0-9a-f]+$/.test(a) && /^[0-9a-f]+$/.test(b)) {
    const x = a.replace(/^0+/, '');
    const y = b.replace(/^0+/, '');
    if (x.length !== y.length) return x.length - y.length;
    return compareText(x, y);
  }
  return compareText(a, b);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function basename(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

function parent(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(0, Math.max(1, trimmed.lastIndexOf('/')));
}
