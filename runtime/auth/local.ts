import { randomBytes, webcrypto } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../state/atomic-write.ts';
import { hashPassword } from './passwords.ts';
import { createPolicy, tokenKey, type AuthPolicy, type UserTable } from './policy.ts';
import { readIfExists } from '../state/read-if-exists.ts';

const SECRET_BYTES = 32;

/** Where the runtime keeps its secrets inside the state folder. */
export function authFiles(stateDir: string) {
  const dir = path.join(stateDir, 'auth');
  return { dir, secret: path.join(dir, 'jwt-secret'), passwd: path.join(dir, 'passwd.json') };
}

/**
 * The device's policy: accounts from `<stateDir>/auth/passwd.json` (set by `chutebox passwd`, read on
 * every request), tokens signed with `<stateDir>/auth/jwt-secret` (32 random bytes, made on first
 * start or when missing; read on every request, so a factory reset that removes it ends every token). Until a password is set, only loopback clients are served, without credentials.
 *
 * @example
 * const auth = await localAuth('/var/lib/chutebox');
 */
export async function localAuth(stateDir: string): Promise<AuthPolicy> {
  const files = authFiles(stateDir);
  await prepareAuth(stateDir);
  let current: { bytes: Buffer; key: webcrypto.CryptoKey } | undefined;
  /** The key of the secret on disk now: a factory reset replaces it, and the tokens signed before stop working. */
  const secret = async () => {
    const bytes = Buffer.from(await readOrCreateSecret(files.secret));
    if (current === undefined || !current.bytes.equals(bytes)) current = { bytes, key: await tokenKey(bytes) };
    return current.key;
  };
  await secret();
  return createPolicy({ users: () => readUsers(files.passwd), secret, openToLoopbackWithoutPassword: true });
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
 * hash is stored.
 *
 * @example
 * await setPassword('/var/lib/chutebox', 'paradrop', 'correct horse battery staple');
 */
export async function setPassword(stateDir: string, username: string, password: string): Promise<void> {
  const files = authFiles(stateDir);
  await mkdir(files.dir, { recursive: true, mode: 0o700 });
  const users = { ...(await readUsers(files.passwd)), [username]: await hashPassword(password) };
  await writeFileAtomic(files.passwd, `${JSON.stringify({ users }, null, 2)}\n`, 0o600);
}

/** The accounts of a passwd.json; none when the file does not exist. */
export async function readUsers(file: string): Promise<UserTable> {
  const text = await readIfExists(file);
  if (text === null) return {};
  const users = (JSON.parse(text) as { users?: unknown }).users;
  if (typeof users !== 'object' || users === null || Object.values(users).some((hash) => typeof hash !== 'string')) {
    throw new Error(`${file} is not a chutebox password file; run \`chutebox passwd\` to write a new one`);
  }
  return users as UserTable;
}

async function readOrCreateSecret(file: string): Promise<Uint8Array> {
  try {
    const secret = await readFile(file);
    if (secret.length < SECRET_BYTES) throw new Error(`${file} holds fewer than ${SECRET_BYTES} bytes; delete it to make a new one`);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(SECRET_BYTES);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, secret, 0o600);
  return secret;
}
