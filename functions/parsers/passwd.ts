import type { Account } from '../core/device/index.ts';

/** The largest uid or gid: `(uid_t) -1` means "no id", so ids end one below it. */
const MAX_ID = 2 ** 32 - 2;

/**
 * The passwd database (`/etc/passwd`): one `name:password:uid:gid:gecos:home:shell` line per account.
 * Blank lines, `#` comments, NIS compat lines (`+…`, `-…`) and malformed lines (fewer than seven
 * fields, an empty name, a uid or gid that is not a decimal id) are skipped, as the C library
 * skips them. Accounts come in the file's order, repeated names included.
 *
 * @example
 * parsePasswd('root:x:0:0:root:/root:/bin/ash\nparadrop:x:1000:1000:ParaDrop:/home/paradrop:/bin/ash\n')
 * // [{ name: 'root', uid: 0, gid: 0, home: '/root' }, { name: 'paradrop', uid: 1000, gid: 1000, home: '/home/paradrop' }]
 */
export function parsePasswd(text: string): Account[] {
  const accounts: Account[] = [];
  for (const line of text.split('\n')) {
    const fields = line.replace(/\r$/, '').split(':');
    const [name = '', , uid = '', gid = '', , home = ''] = fields;
    if (fields.length < 7 || name === '' || name.startsWith('#') || name.startsWith('+') || name.startsWith('-')) continue;
    const [uidValue, gidValue] = [id(uid), id(gid)];
    if (uidValue === null || gidValue === null) continue;
    accounts.push({ name, uid: uidValue, gid: gidValue, home });
  }
  return accounts;
}

/**
 * The account of a user name, as `getpwnam(3)` finds it: the first line with that name; null when
 * there is none.
 *
 * @example
 * findAccount(passwd, 'paradrop') // { name: 'paradrop', uid: 1000, gid: 1000, home: '/home/paradrop' }
 * findAccount(passwd, 'mallory')  // null
 */
export function findAccount(text: string, name: string): Account | null {
  return parsePasswd(text).find((account) => account.name === name) ?? null;
}

/** Password fields that hold no secret: `x` (the hash is in the shadow file), locks, or none. */
const NOT_A_HASH = new Set(['x', '*', '!', '!!', '']);

/**
 * The passwd text with every password field that could hold a hash replaced by `x`, everything else
 * byte for byte: what `chutebox record` writes into a scenario. Systems with a shadow file already
 * have `x` everywhere; an old one may keep hashes in `/etc/passwd` itself.
 *
 * @example
 * redactPasswd('root:$1$ab$hash:0:0:root:/root:/bin/ash\n') // 'root:x:0:0:root:/root:/bin/ash\n'
 */
export function redactPasswd(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const fields = line.split(':');
      if (line.startsWith('#') || fields.length < 2 || NOT_A_HASH.has(fields[1]!)) return line;
      fields[1] = 'x';
      return fields.join(':');
    })
    .join('\n');
}

/** A decimal uid or gid, or null. */
function id(text: string): number | null {
  if (!/^[0-9]{1,10}$/.test(text)) return null;
  const value = Number(text);
  return value <= MAX_ID ? value : null;
}
