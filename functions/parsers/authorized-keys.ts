/** One key line of an `authorized_keys` file. */
export interface AuthorizedKey {
  /** The line as written, without the white space around it. */
  line: string;
  /** The options field as written, e.g. `from="10.0.0.0/8",no-pty`; null when the line has none. */
  options: string | null;
  /** The key type, e.g. `ssh-ed25519`. */
  type: string;
  /** The key in base64 (the SSH wire format of the public key). */
  data: string;
  /** The comment, e.g. `alice@laptop`; null when there is none. */
  comment: string | null;
}

/** A key type as OpenSSH names them: `ssh-ed25519`, `ecdsa-sha2-nistp256`, `sk-ssh-ed25519@openssh.com`, `rsa-…`. */
const KEY_TYPE = /^(?:ssh|sk|ecdsa|rsa)-[A-Za-z0-9@._-]+$/;

/** Base64 text, padded or not (whether it decodes is the key check's business). */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The key lines of an `authorized_keys` file (sshd(8), AUTHORIZED_KEYS FILE FORMAT), in order: each
 * `[options] type base64 [comment]`. Blank lines, `#` comments and lines that hold no key (sshd
 * ignores them too) are skipped.
 *
 * @example
 * parseAuthorizedKeys('# laptop\nssh-ed25519 AAAAC3Nza… alice@laptop\n\nno-pty ssh-rsa AAAAB3Nza…\n').map((key) => key.line)
 * // ['ssh-ed25519 AAAAC3Nza… alice@laptop', 'no-pty ssh-rsa AAAAB3Nza…']
 */
export function parseAuthorizedKeys(text: string): AuthorizedKey[] {
  const keys: AuthorizedKey[] = [];
  for (const line of text.split('\n')) {
    const key = parseKeyLine(line);
    if (key !== null) keys.push(key);
  }
  return keys;
}

/**
 * The key lines of an `authorized_keys` text as written (`AuthorizedKey.line`); none for a file that
 * does not exist (null).
 *
 * @example
 * keyLines('# laptop\nssh-ed25519 AAAAC3Nza… alice@laptop\n') // ['ssh-ed25519 AAAAC3Nza… alice@laptop']
 * keyLines(null)                                               // []
 */
export function keyLines(text: string | null): string[] {
  return parseAuthorizedKeys(text ?? '').map((key) => key.line);
}

/**
 * One line of an `authorized_keys` file, as sshd reads it: a key alone, or else an options field
 * (comma-separated, spaces only inside double quotes, `\"` escaping a quote) before the key. Null for
 * a blank line, a comment, or a line that holds no key.
 *
 * @example
 * parseKeyLine('command="uptime",no-pty ssh-ed25519 AAAAC3Nza… ops key')
 * // { line: 'command="uptime",no-pty ssh-ed25519 AAAAC3Nza… ops key', options: 'command="uptime",no-pty', type: 'ssh-ed25519', data: 'AAAAC3Nza…', comment: 'ops key' }
 */
export function parseKeyLine(text: string): AuthorizedKey | null {
  const line = text.trim();
  if (line === '' || line.startsWith('#')) return null;
  const bare = readKey(line);
  if (bare !== null) return { line, options: null, ...bare };
  const end = endOfOptions(line);
  if (end === null) return null;
  const key = readKey(line.slice(end).trimStart());
  return key === null ? null : { line, options: line.slice(0, end), ...key };
}

/**
 * Whether two keys are the same key: the same type and the same key data, whatever their options
 * and comments.
 *
 * @example
 * sameKey(parseKeyLine('ssh-ed25519 AAAAC3Nza… alice@laptop')!, parseKeyLine('no-pty ssh-ed25519 AAAAC3Nza… alice@phone')!) // true
 */
export function sameKey(a: Pick<AuthorizedKey, 'type' | 'data'>, b: Pick<AuthorizedKey, 'type' | 'data'>): boolean {
  return a.type === b.type && decoded(a.data) === decoded(b.data);
}

/**
 * The file's text with one more line at its end: every existing byte kept, a newline added first
 * when the text does not end with one.
 *
 * @example
 * appendLine('ssh-rsa AAAAB3Nza… old', 'ssh-ed25519 AAAAC3Nza… new') // 'ssh-rsa AAAAB3Nza… old\nssh-ed25519 AAAAC3Nza… new\n'
 * appendLine(null, 'ssh-ed25519 AAAAC3Nza… new')                      // 'ssh-ed25519 AAAAC3Nza… new\n'
 */
export function appendLine(text: string | null, line: string): string {
  const before = text ?? '';
  return `${before}${before === '' || before.endsWith('\n') ? '' : '\n'}${line}\n`;
}

/** `type base64 [comment]` at the start of `text`, or null. */
function readKey(text: string): Omit<AuthorizedKey, 'line' | 'options'> | null {
  const match = /^(\S+)[ \t]+(\S+)(?:[ \t]+(.*))?$/s.exec(text);
  if (match === null) return null;
  const [, type = '', data = '', comment = ''] = match;
  if (!KEY_TYPE.test(type) || !BASE64.test(data)) return null;
  return { type, data, comment: comment.trim() === '' ? null : comment.trim() };
}

/** Where the options field at the start of a line ends (at unquoted white space), or null when a quote is left open. */
function endOfOptions(line: string): number | null {
  let quoted = false;
  let i = 0;
  for (; i < line.length && (quoted || (line[i] !== ' ' && line[i] !== '\t')); i++) {
    if (line[i] === '\\' && line[i + 1] === '"') i++;
    else if (line[i] === '"') quoted = !quoted;
  }
  return quoted || i === line.length ? null : i;
}

/** Base64 decoded as a binary string, or the text itself when it is not base64. */
function decoded(data: string): string {
  try {
    return atob(data);
  } catch {
    return data;
  }
}
