import type { Device } from '../core/device/index.ts';
import type { Handler } from '../core/handler.ts';
import { defineRoute } from '../core/route.ts';
import { reusingLast } from '../core/reusing-last.ts';
import { PACKAGE_VERSION } from '../core/version.ts';
import { parseShellVars } from '../parsers/shell-vars.ts';
import { parseUptime } from '../parsers/uptime.ts';
import { readDmi } from './dmi.ts';
import { NoInputSchema, SoftwareSchema, type Software } from './schemas.ts';

export const route = defineRoute('GET /api/v1/info/software', 'Firmware, operating system, kernel and daemon versions, and uptime');
export const request = NoInputSchema;
export const response = SoftwareSchema;

/**
 * The software record: BIOS fields from DMI (null without DMI), the OS name (OpenWrt's
 * DISTRIB_DESCRIPTION, else os-release's PRETTY_NAME), `<sysname>-<release>` of uname, the chutebox
 * version, and whole seconds since boot.
 *
 * @example
 * await handle(input, device)
 * // { biosVendor: null, biosVersion: null, biosDate: null, osVersion: 'OpenWrt 23.05.3 r23809-234f1a2efa',
 * //   kernelVersion: 'Linux-5.15.150', pdVersion: '0.1.0', uptime: 3600 }
 */
export const handle: Handler<Software> = async (_input, device) => {
  const [dmi, osVersion, uname, uptime] = await Promise.all([
    readDmi(device, ['bios_vendor', 'bios_version', 'bios_date']),
    readOsVersion(device),
    device.uname(),
    device.readFile('/proc/uptime'),
  ]);
  const seconds = parseUptime(uptime ?? '')?.uptime;
  return {
    biosVendor: dmi.bios_vendor,
    biosVersion: dmi.bios_version,
    biosDate: dmi.bios_date,
    osVersion,
    kernelVersion: `${uname.sysname}-${uname.release}`,
    pdVersion: PACKAGE_VERSION,
    uptime: seconds === undefined ? null : Math.floor(seconds),
  };
};

/**
 * /etc/openwrt_release's DISTRIB_DESCRIPTION; else PRETTY_NAME (or NAME and VERSION) of the first
 * os-release file that exists, /etc/os-release then /usr/lib/os-release; else null.
 */
async function readOsVersion(device: Device): Promise<string | null> {
  const openwrt = await device.readFile('/etc/openwrt_release');
  const description = openwrt === null ? '' : openwrtDescription(device, openwrt);
  if (description) return description;
  const osRelease = (await device.readFile('/etc/os-release')) ?? (await device.readFile('/usr/lib/os-release'));
  return osRelease === null ? null : osReleaseName(device, osRelease);
}

/** DISTRIB_DESCRIPTION of /etc/openwrt_release ('' without one), and the name an os-release file gives (null without one), parsed again only when the text changed. */
const openwrtDescription = reusingLast((text: string) => parseShellVars(text).DISTRIB_DESCRIPTION?.trim() ?? '');
const osReleaseName = reusingLast((text: string) => {
  const vars = parseShellVars(text);
  return vars.PRETTY_NAME?.trim() || [vars.NAME, vars.VERSION].filter((part) => part?.trim()).join(' ') || null;
});
