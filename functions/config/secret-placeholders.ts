/**
 * The `[redacted]` placeholders of secrets in configuration documents, the chutes' and the host's:
 * GETs answer them in place of secrets (`redactDocument`), and a PUT or a queued change puts the
 * stored secret back in their place (`restoreRedacted`, `resolvePlaceholders`).
 */
import { inputPath, type InputError } from '../core/problem.ts';
import { isSecretName, REDACTED } from '../parsers/environ.ts';
import { mapping } from '../chutes/chute-record.ts';

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

/**
 * An edited document with every `[redacted]` placeholder that `redactDocument` put there replaced by
 * the stored value at the same place: what lets a client GET a configuration, edit it and send it
 * back without knowing its secrets. A placeholder counts as one only where GET writes one: as the
 * value of a secret-looking field, or as `NAME=[redacted]` for a secret-looking `NAME` (kept when
 * the stored string at that place is `NAME=…`). A placeholder with no stored value behind it is an
 * error, never stored as a secret: `{ path, message }` with the path from the document's root.
 *
 * @example
 * restoreRedacted({ net: { wlan: { key: '[redacted]', ssid: 'lab' } } }, { net: { wlan: { key: 'hunter22', ssid: 'old' } } })
 * // { document: { net: { wlan: { key: 'hunter22', ssid: 'lab' } } }, errors: [] }
 * restoreRedacted({ net: { mesh: { key: '[redacted]' } } }, {})
 * // { document: …, errors: [{ path: 'net.mesh.key', message: 'is [redacted], the placeholder of a secret, but …' }] }
 */
export function restoreRedacted(edited: Record<string, unknown>, stored: Record<string, unknown>): { document: Record<string, unknown>; errors: InputError[] } {
  const errors: InputError[] = [];
  const document = restore(edited, stored, [], errors) as Record<string, unknown>;
  return { document, errors };
}

const NOTHING_STORED = `is ${REDACTED}, the placeholder of a secret, but the stored configuration has no secret here to keep: send the value itself`;

function restore(edited: unknown, stored: unknown, at: (string | number)[], errors: InputError[]): unknown {
  if (typeof edited === 'string') {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(edited);
    if (match === null || match[2] !== REDACTED || !isSecretField(match[1]!)) return edited;
    if (typeof stored === 'string' && stored.startsWith(`${match[1]}=`)) return stored;
    errors.push({ path: inputPath('', at), message: NOTHING_STORED });
    return edited;
  }
  if (Array.isArray(edited)) return edited.map((item, i) => restore(item, Array.isArray(stored) ? stored[i] : undefined, [...at, i], errors));
  if (typeof edited !== 'object' || edited === null) return edited;
  const storedFields = mapping(stored);
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(edited)) {
    if (field === REDACTED && isSecretField(name)) {
      if (Object.hasOwn(storedFields, name)) out[name] = storedFields[name];
      else {
        errors.push({ path: inputPath('', [...at, name]), message: NOTHING_STORED });
        out[name] = field;
      }
    } else {
      out[name] = restore(field, storedFields[name], [...at, name], errors);
    }
  }
  return out;
}

/**
 * The document of a queued change (`update-config`, `update-hostconfig`) as it is to be applied: its
 * `[redacted]` placeholders resolved by `restoreRedacted` against the configuration in effect *when
 * the change runs*, not when it was queued, so that a placeholder keeps the secret a change queued
 * before it set. The PUT handlers have already checked that every placeholder had a secret behind it
 * then; the change work (runtime and emulator) calls this before it applies anything.
 *
 * @param subject what the document is, for the message: `the host configuration`.
 * @throws Error naming the path of every placeholder with no secret behind it any more (a change in
 *   between removed that network): the change fails and nothing is applied. The message names paths,
 *   never a value.
 * @example
 * resolvePlaceholders({ wan: { password: '[redacted]' } }, { wan: { password: 'new' } }, 'the host configuration')
 * // { wan: { password: 'new' } }
 * resolvePlaceholders({ net: { mesh: { key: '[redacted]' } } }, {}, 'the configuration of chute hello')
 * // throws 'net.mesh.key is [redacted], the placeholder of a secret, but the configuration of chute hello in effect now has no secret there …'
 */
export function resolvePlaceholders(edited: Record<string, unknown>, inEffect: Record<string, unknown>, subject: string): Record<string, unknown> {
  const { document, errors } = restoreRedacted(edited, inEffect);
  if (errors.length === 0) return document;
  const paths = errors.map((error) => error.path).join(', ');
  const placeholders =
    errors.length === 1 ? `${paths} is ${REDACTED}, the placeholder of a secret, but` : `${paths} are ${REDACTED}, placeholders of secrets, but`;
  throw new Error(`${placeholders} ${subject} in effect now has no secret there to keep (a change since the PUT removed it): nothing was applied`);
}
