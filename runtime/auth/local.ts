import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { removeInterruptedWrites, writeFileAtomic } from '../state/atomic-write.ts';
import { createPolicy, lazyTokenKey, tokenKey, whenKnown, type AuthPolicy, type UserTable } from './policy.ts';
import { readIfExists } from '../state/read-if-exists.ts';
import { chuteToken } from './chute-tokens.ts';
import { watchedFile } from '../state/watched-file.ts';

const SECRET_BYTES = 32;

/** Where the runtime keeps its secrets inside the state folder. */
export function authFiles(stateDir: string) {
  const dir = path.join(stateDir, 'auth');
  return { dir, secret: path.join(dir, 'jwt-secret'), passwd: path.join(dir, 'passwd.json') };
}

/**
 * The device's policy: accounts from `<stateDir>/auth/passwd.json` (set by `chutebox passwd`), tokens
 * signed with `<stateDir>/auth/jwt-secret` (32 random bytes, made on first start or when missing, so a
 * factory reset that removes it ends every token). Both files are read again only after their folder
 * changed (`watchedFile`): a new password applies from the next request, and a request reads nothing.
 * Until a password is set, only loopback clients are served, without credentials. At start, before
 * anything else, it removes the temporary files that a crash left of its writes of the secret
 * (`removeInterruptedWrites`; `passwd.json` is `chutebox passwd`'s, which clears its own).
 *
 * @example
 * const auth = await localAuth('/var/lib/chutebox');
 */
export async function localAuth(stateDir: string): Promise<AuthPolicy> {
  const files = authFiles(stateDir);
  await removeInterruptedWrites(files.dir, [path.basename(files.secret)]);
  await prepareAuth(stateDir);
  const users = watchedFile(files.passwd, (bytes) => (bytes === null ? {} : parseUsers(bytes.toString('utf8'), files.passwd)));
  const secretFile = watchedFile(files.secret, (bytes) => {
    if (bytes === null) return null;
    const checked = checkedSecret(bytes, files.secret);
    return { bytes: checked, key: lazyTokenKey(checked) };
  });
  /** The key of the secret on disk now: a factory reset replaces it, and the tokens signed before stop working. */
  const secret = () => whenKnown(secretFile(), (file) => (file === null ? readOrCreateSecret(files.secret).then(tokenKey) : file.key()));
  // The secret is read and checked now; its key is made on the first token.
  await secretFile();
  const store = { write: (table: UserTable) => writeUsers(files, table), cleared: {} };
  const chuteSecret = () => whenKnown(secretFile(), (file) => file?.bytes ?? null);
  return createPolicy({ users, secret, openToLoopbackWithoutPassword: true, store, chuteSecret });
}

/**
 * The API token of chute `chute` (runtime/auth/chute-tokens.ts), made with the device's secret (made
 * first when there is none): what the chute's container gets as `PARADROP_API_TOKEN`.
 *
 * @example
 * await deviceChuteToken('/var/lib/chutebox', 'hello') // 'chute.hello.3q2-7w…'
 */
export async function deviceChuteToken(stateDir: string, chute: string): Promise<string> {
  return chuteToken(await readOrCreateSecret(authFiles(stateDir).secret), chute);
}

/**
 * Makes what a fresh install has of the runtime's credentials: `<stateDir>/auth/` (0700) with a new
 * token secret, unless one is there. No account: until `chutebox passwd`, only loopback is served.
 */
export async function prepareAuth(stateDir: string): Promise<void> {
  const files = authFiles(stateDir);
  await mkdir(files.dir, { recursive: true, mode: 0o700 });
  await readOrCreateSecret(files.secret);
}

/**
 * Sets (or replaces) the password of one account in `<stateDir>/auth/passwd.json`; only its scrypt
 * hash is stored. First removes the temporary files that an earlier run, cut short, left of its write
 * (`removeInterruptedWrites`).
 *
 * @example
 * await setPassword('/var/lib/chutebox', 'paradrop', 'correct horse battery staple');
 */
export async function setPassword(stateDir: string, username: string, password: string): Promise<void> {
  const files = authFiles(stateDir);
  await mkdir(files.dir, { recursive: true, mode: 0o700 });
  await removeInterruptedWrites(files.dir, [path.basename(files.passwd)]);
  // scrypt comes from dist/passwords.mjs: serve, which holds this module, hashes no password.
  const { hashPassword } = await import('./passwords.ts');
  await writeUsers(files, { ...(await readUsers(files.passwd)), [username]: await hashPassword(password) });
}

/** Writes the accounts to `passwd.json` (mode 600), atomically. */
function writeUsers(files: ReturnType<typeof authFiles>, users: UserTable): Promise<void> {
  return writeFileAtomic(files.passwd, `${JSON.stringify({ users }, null, 2)}\n`, 0o600);
}

/** The accounts of a passwd.json; none when the file does not exist. */
export async function readUsers(file: string): Promise<UserTable> {
  const text = await readIfExists(file);
  return text === null ? {} : parseUsers(text, file);
}

function parseUsers(text: string, file: string): UserTable {
  const users = (JSON.parse(text) as { users?: unknown }).users;
  if (typeof users !== 'object' || users === null || Object.values(users).some((hash) => typeof hash !== 'string')) {
    throw new Error(`${file} is not a chutebox password file; run \`chutebox passwd\` to write a new one`);
  }
  return users as UserTable;
}

/** The bytes of a secret file, once they are long enough to be one. */
function checkedSecret(secret: Uint8Array, file: string): Uint8Array {
  if (secret.length < SECRET_BYTES) throw new Error(`${file} holds fewer than ${SECRET_BYTES} bytes; delete it to make a new one`);
  return secret;
}

async function readOrCreateSecret(file: string): Promise<Uint8Array> {
  try {
    return checkedSecret(await readFile(file), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(SECRET_BYTES);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, secret, 0o600);
  return secret;
}
