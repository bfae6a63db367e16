/** One environment variable: its name and value. */
export type EnvironEntry = [name: string, value: string];

/**
 * `/proc/<pid>/environ`: `NAME=value` entries separated (and ended) by NUL bytes. A text without any
 * NUL, as a hand-written file would be, has one entry per line. Entries without `=` or with an empty
 * name are skipped; when a name repeats, the first one wins, as `getenv(3)` finds it.
 *
 * @example
 * parseEnviron('HOME=/root\0PATH=/usr/bin:/bin\0') // [['HOME', '/root'], ['PATH', '/usr/bin:/bin']]
 * parseEnviron('LANG=C.UTF-8\nTZ=UTC\n')             // [['LANG', 'C.UTF-8'], ['TZ', 'UTC']]
 */
export function parseEnviron(text: string): EnvironEntry[] {
  const separator = text.includes('\0') ? '\0' : /\r?\n/;
  const seen = new Set<string>();
  const entries: EnvironEntry[] = [];
  for (const entry of text.split(separator)) {
    const equals = entry.indexOf('=');
    if (equals <= 0) continue;
    const name = entry.slice(0, equals);
    if (seen.has(name)) continue;
    seen.add(name);
    entries.push([name, entry.slice(equals + 1)]);
  }
  return entries;
}

/** Names whose values are secrets: the one rule for the environment endpoint, the chute cache and `chutebox record`. */
const SECRET_NAME = /PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|CREDENTIAL/i;

/**
 * Whether a name (of a variable, or of a field) looks like it holds a secret.
 *
 * @example
 * isSecretName('GITHUB_TOKEN') // true
 * isSecretName('acct_secret')  // true
 * isSecretName('PATH')         // false
 */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** What a secret value is replaced with. */
export const REDACTED = '[redacted]';

/**
 * The entries with the values of secret-looking names replaced by {@link REDACTED}, in the same order.
 *
 * @example
 * redactSecrets([['PATH', '/bin'], ['GITHUB_TOKEN', 'ghp_x']]) // [['PATH', '/bin'], ['GITHUB_TOKEN', '[redacted]']]
 */
export function redactSecrets(entries: readonly EnvironEntry[]): EnvironEntry[] {
  return entries.map(([name, value]) => [name, isSecretName(name) ? REDACTED : value]);
}

/**
 * Entries as `/proc/<pid>/environ` holds them: each `NAME=value` ended by a NUL byte, so that
 * {@link parseEnviron} reads them back unchanged (newlines in values included).
 *
 * @example
 * formatEnviron([['HOME', '/root'], ['TZ', 'UTC']]) // 'HOME=/root\0TZ=UTC\0'
 */
export function formatEnviron(entries: readonly EnvironEntry[]): string {
  return entries.map(([name, value]) => `${name}=${value}\0`).join('');
}
