import { decimal, fields } from './numbers.ts';

/**
 * `/proc/loadavg`: the 1, 5 and 15 minute load averages (then `running/total` tasks and the last pid,
 * which are not returned). Null when the first three fields are not numbers.
 *
 * @example
 * parseLoadavg('0.20 0.18 0.12 1/80 11206\n') // [0.2, 0.18, 0.12]
 */
export function parseLoadavg(text: string): [number, number, number] | null {
  const [one, five, fifteen] = fields(text).map(decimal);
  if (one == null || five == null || fifteen == null) return null;
  return [one, five, fifteen];
}
