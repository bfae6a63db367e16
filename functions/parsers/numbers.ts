/**
 * `part` as a percentage of `whole`, rounded to one decimal as psutil does; 0 when `whole` is 0.
 *
 * @example
 * percent(1, 3) // 33.3
 */
export function percent(part: number, whole: number): number {
  if (!(whole > 0)) return 0;
  return Math.round((part / whole) * 1000) / 10;
}

/**
 * A decimal number written as digits with an optional fraction and sign, or null (unlike `Number`,
 * which reads '' and ' ' as 0).
 *
 * @example
 * decimal('350735.47') // 350735.47
 * decimal('')          // null
 */
export function decimal(text: string | undefined): number | null {
  if (text === undefined || !/^[+-]?\d+(\.\d+)?$/.test(text)) return null;
  return Number(text);
}

/**
 * The whitespace-separated fields of a line, without empty ones.
 *
 * @example
 * fields('  0.20 0.18\t0.12 \n') // ['0.20', '0.18', '0.12']
 */
export function fields(line: string): string[] {
  return line.split(/\s+/).filter((field) => field !== '');
}
