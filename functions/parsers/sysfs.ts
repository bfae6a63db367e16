/**
 * Single values read from sysfs and procfs attribute files.
 */

/**
 * DMI values that firmware leaves as placeholders instead of real names, compared case-insensitively
 * and without spaces (so "Default string" and "Defaultstring" both match). The names follow systemd's
 * hwdb list of meaningless DMI values plus common BIOS defaults.
 */
const DMI_PLACEHOLDERS: ReadonlySet<string> = new Set(
  [
    'To Be Filled By O.E.M.',
    'Default string',
    'System manufacturer',
    'System Product Name',
    'System Version',
    'System Name',
    'Base Board Manufacturer',
    'Base Board Product Name',
    'Base Board Version',
    'O.E.M.',
    'OEM',
    'N/A',
    'NA',
    'None',
    'Not Applicable',
    'Not Specified',
    'Not Available',
    'Unknown',
    'Type1ProductConfigId',
    'x.x',
    '0123456789',
  ].map(placeholderKey),
);

function placeholderKey(value: string): string {
  return value.replace(/\s+/g, '').toLowerCase();
}

/**
 * A value of /sys/class/dmi/id/*: trimmed; null when the file was missing or unreadable (null in),
 * empty, or an OEM placeholder such as "System manufacturer" or "To Be Filled By O.E.M.".
 *
 * @example
 * dmiValue('GOOGLE\n')               // 'GOOGLE'
 * dmiValue('System manufacturer\n')  // null
 * dmiValue(null)                     // null
 */
export function dmiValue(raw: string | null): string | null {
  const value = raw?.trim() ?? '';
  if (value === '' || DMI_PLACEHOLDERS.has(placeholderKey(value))) return null;
  return value;
}

/**
 * A device-tree string property such as /proc/device-tree/model: NUL-terminated, possibly a list of
 * NUL-separated strings (then the first). Null when missing or empty.
 *
 * @example
 * deviceTreeString('TP-Link Archer C7 v5\0') // 'TP-Link Archer C7 v5'
 */
export function deviceTreeString(raw: string | null): string | null {
  const value = raw?.split('\0')[0]?.trim() ?? '';
  return value === '' ? null : value;
}

/**
 * A hexadecimal id from sysfs as a `0x`-prefixed, lower-case string of at least four digits:
 * PCI and SDIO `vendor`/`device` files hold `0x168c`, USB `idVendor`/`idProduct` hold `0bda`.
 * Null when missing or not hexadecimal.
 *
 * @example
 * hexId('0x168C\n') // '0x168c'
 * hexId('0bda\n')   // '0x0bda'
 */
export function hexId(raw: string | null): string | null {
  const digits = /^(?:0x)?([0-9a-f]+)$/i.exec(raw?.trim() ?? '')?.[1];
  return digits === undefined ? null : `0x${digits.toLowerCase().padStart(4, '0')}`;
}

/**
 * The first line of an attribute file, trimmed; null when missing or empty.
 *
 * @example
 * sysfsLine('00:11:22:33:44:55\n') // '00:11:22:33:44:55'
 */
export function sysfsLine(raw: string | null): string | null {
  const value = raw?.split('\n')[0]?.trim() ?? '';
  return value === '' ? null : value;
}
