import { decimal, fields } from './numbers.ts';

/**
 * `/proc/uptime`: seconds since boot and the summed idle seconds of all CPUs, both with decimals.
 * Null when the text does not start with a number.
 *
 * @example
 * parseUptime('350735.47 234388.90\n') // { uptime: 350735.47, idle: 234388.9 }
 */
export function parseUptime(text: string): { uptime: number; idle: number | null } | null {
  const [uptime, idle] = fields(text).map(decimal);
  if (uptime === undefined || uptime === null) return null;
  return { uptime, idle: idle ?? null };
}
