import { UsageError } from '../runtime/options.ts';

/* The values of the emulator's own options, shared by `chutebox emulate` and the Lambda device module. */

/**
 * The `--controller` base URL: http or https, without credentials, query or fragment.
 *
 * @throws UsageError naming `--controller`.
 */
export function parseControllerUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || !['http:', 'https:'].includes(url.protocol) || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new UsageError(`--controller must be an http or https URL without credentials, query or fragment, not ${JSON.stringify(text)}`);
  }
  return text;
}

/**
 * A delay in whole milliseconds, 0 to 60000.
 *
 * @throws UsageError naming `--<flag>`.
 */
export function parseMilliseconds(text: string, flag: string): number {
  const ms = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(ms >= 0 && ms <= 60_000)) throw new UsageError(`--${flag} must be a whole number of milliseconds from 0 to 60000, not ${JSON.stringify(text)}`);
  return ms;
}

/**
 * The `--seed`: a whole number from 0 to 2^53 − 1 (`Number.MAX_SAFE_INTEGER`, as a state's `seed`).
 *
 * @throws UsageError naming `--seed`.
 */
export function parseSeed(text: string): number {
  const seed = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, not ${JSON.stringify(text)}`);
  return seed;
}
