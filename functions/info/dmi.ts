import type { Device } from '../core/device/index.ts';
import { dmiValue } from '../parsers/sysfs.ts';

/** The kernel's DMI (SMBIOS) attributes, one file per field; missing on most routers. */
export const DMI_DIR = '/sys/class/dmi/id';

/**
 * Reads DMI fields; each is null when the device has no such file, it is empty or unreadable (root
 * only), or it holds an OEM placeholder (see `dmiValue`).
 *
 * @example
 * await readDmi(device, ['sys_vendor', 'bios_date']) // { sys_vendor: 'GOOGLE', bios_date: null }
 */
export async function readDmi<Field extends string>(device: Device, names: readonly Field[]): Promise<Record<Field, string | null>> {
  const values = await Promise.all(names.map(async (name) => dmiValue(await device.readFile(`${DMI_DIR}/${name}`))));
  return Object.fromEntries(names.map((name, i) => [name, values[i]!])) as Record<Field, string | null>;
}
