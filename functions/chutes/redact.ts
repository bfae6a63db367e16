import { isSecretName, REDACTED } from '../parsers/environ.ts';

/**
 * Field names of Wi-Fi secrets that the environment rule (`isSecretName`) does not catch: a network's
 * `key` (the WPA passphrase of a chute configuration), `psk`, `wpa_psk`, `passphrase`, `wpa_passphrase`.
 */
const WIFI_SECRET_NAME = /^(?:key|(?:wpa_?)?psk|(?:wpa_?)?passphrase)$/i;

/**
 * A copy of a decoded document with every secret replaced by `[redacted]`, at any depth: the value of
 * a field whose name looks secret (`isSecretName`: `apiToken`, `acct_secret`, `PASSWORD`, …, or a
 * Wi-Fi secret: `key`, `psk`, `passphrase`), whatever it holds; and in a `NAME=value` string (an
 * environment entry as Docker writes one) the value of a secret-looking `NAME`.
 *
 * @example
 * redactDocument({ networks: { wlan: { key: 'hunter22' } }, env: ['API_TOKEN=abc', 'TZ=UTC'] })
 * // { networks: { wlan: { key: '[redacted]' } }, env: ['API_TOKEN=[redacted]', 'TZ=UTC'] }
 */
export function redactDocument<T>(value: T): T {
  return redact(value) as T;
}

/** Whether the value of a field by this name is a secret. */
export function isSecretField(name: string): boolean {
  return isSecretName(name) || WIFI_SECRET_NAME.test(name);
}

function redact(value: unknown): unknown {
  if (typeof value === 'string') return redactAssignment(value);
  if (Array.isArray(value)) return value.map(redact);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) out[name] = isSecretField(name) ? REDACTED : redact(field);
  return out;
}

/** `NAME=value` with a secret-looking name keeps the name only: `API_TOKEN=[redacted]`. */
function redactAssignment(text: string): string {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(text);
  return match !== null && isSecretField(match[1]!) ? `${match[1]}=${REDACTED}` : text;
}
