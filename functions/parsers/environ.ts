/**
 * `/proc/<pid>/environ`: `NAME=value` entries separated (and ended) by NUL bytes. A text without any
 * NUL, as a hand-written file would be, has one entry per line. Entries without `=` or with an empty
 * name are skipped; when a name repeats, the first one wins, as `getenv(3)` finds it.
 *
 * @example
 * parseEnviron('HOME=/root\0PATH=/usr/bin:/bin\0') // [['HOME', '/root'], ['PATH', '/usr/bin:/bin']]
 * parseEnviron('LANG=C.UTF-8\nTZ=UTC\n')             // [['LANG', 'C.UTF-8'], ['TZ', 'UTC']]
 */
export function parseEnviron(text: string): [name: string, value: string][] {
  const separator = text.includes('\0') ? '\0' : /\r?\n/;
  const seen = new Set<string>();
  const entries: [string, string][] = [];
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
