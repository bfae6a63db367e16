import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { USER_NAME } from '../../functions/config/user-account.ts';
import type { Account, Accounts } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { parsePasswd } from '../../functions/parsers/passwd.ts';
import { removeInterruptedWrites, writeFileAtomic } from '../state/atomic-write.ts';

/** Where `hostAccounts` finds things. */
export interface HostAccountsOptions {
  /** The passwd database (default `/etc/passwd`). */
  passwdFile?: string;
}

/** The largest `authorized_keys` chutebox reads (a thousand RSA 4096 keys fit). */
export const MAX_AUTHORIZED_KEYS_BYTES = 1024 * 1024;

const KEYS_FILE = 'authorized_keys';

/** The host's accounts, and what the runtime does with them at start. */
export type HostAccounts = Accounts & {
  /**
   * Removes, once, the temporary files of `authorized_keys` writes that a crash cut short
   * (`removeInterruptedWrites`: `.authorized_keys.<12 hex>.tmp`, nothing else) from the `~/.ssh` of
   * every account whose keys could be written (a user name, an absolute home); a `~/.ssh` that is
   * missing or refused (a link) is left alone. The runtime calls it at start; every write of keys
   * waits for it, so that none is under way meanwhile. It never throws: a failure is logged.
   */
  removeInterruptedWrites(): Promise<void>;
};

/**
 * The host's accounts: the passwd database read from `passwdFile`, and each account's
 * `<home>/.ssh/authorized_keys`.
 *
 * The runtime runs as root, and a user controls what is in their home: so `~/.ssh` and
 * `~/.ssh/authorized_keys` are opened without following a symbolic link (`O_NOFOLLOW`), and
 * everything after that goes through the opened `~/.ssh` (`/proc/self/fd/<fd>/…`), so that swapping
 * a link in meanwhile cannot steer a read or a write elsewhere. A link there, or an `authorized_keys`
 * that is not a regular file or is over 1 MiB, is a 409 problem, for reading and for writing.
 *
 * `updateAuthorizedKeys` runs one update at a time per key file, after `removeInterruptedWrites`. It
 * creates a missing `~/.ssh` (mode 700, owned by the account), then replaces `authorized_keys`
 * atomically (mode 600, owned by the account; `writeFileAtomic`). An existing `~/.ssh` is left as it
 * is. A home folder that does not exist is a 409 problem: chutebox does not make one.
 *
 * @example
 * const accounts = hostAccounts({ passwdFile: '/etc/passwd' });
 * await accounts.updateAuthorizedKeys(account, (text) => `${text ?? ''}ssh-ed25519 AAAAC3Nza… alice@laptop\n`);
 */
export function hostAccounts(options: HostAccountsOptions = {}): HostAccounts {
  const passwdFile = options.passwdFile ?? '/etc/passwd';
  const queues = new Map<string, Promise<void>>();
  let clearing: Promise<void> | undefined;

  async function passwd(): Promise<string> {
    try {
      return await readFile(passwdFile, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return '';
      throw error;
    }
  }

  async function clearInterruptedWrites(): Promise<void> {
    const homes = new Set<string>();
    for (const account of parsePasswd(await passwd())) {
      if (!USER_NAME.test(account.name) || !path.isAbsolute(account.home) || homes.has(account.home)) continue;
      homes.add(account.home);
      try {
        const ssh = await openSshDir(account, false);
        if (ssh === null) continue;
        try {
          await removeInterruptedWrites(opened(ssh), [KEYS_FILE]);
        } finally {
          await ssh.close();
        }
      } catch (error) {
        // A refused ~/.ssh (a link, a home that is not a folder) is no place chutebox writes keys to.
        if (!(error instanceof HttpProblem))
          console.error(`cannot remove what interrupted writes of SSH keys left in ${path.join(account.home, '.ssh')}:`, error);
      }
    }
  }

  /** `removeInterruptedWrites`: once. */
  const cleared = () =>
    (clearing ??= clearInterruptedWrites().catch((error: unknown) => console.error('cannot remove what interrupted writes of SSH keys left:', error)));

  return {
    passwd,
    removeInterruptedWrites: cleared,

    async authorizedKeys(account) {
      const ssh = await openSshDir(account, false);
      if (ssh === null) return null;
      try {
        return await readKeys(account, ssh);
      } finally {
        await ssh.close();
      }
    },

    updateAuthorizedKeys(account, update) {
      const file = path.join(account.home, '.ssh', KEYS_FILE);
      const done = (queues.get(file) ?? Promise.resolve()).then(cleared).then(() => writeKeys(account, update));
      const tail = done.then(
        () => {},
        () => {},
      );
      queues.set(file, tail);
      void tail.then(() => {
        if (queues.get(file) === tail) queues.delete(file);
      });
      return done;
    },
  };
}

async function writeKeys(account: Account, update: (current: string | null) => string | null): Promise<void> {
  const ssh = (await openSshDir(account, true))!;
  try {
    const text = update(await readKeys(account, ssh));
    if (text === null) return;
    await writeFileAtomic(inside(ssh, KEYS_FILE), text, 0o600, { owner: { uid: account.uid, gid: account.gid } }).catch((error: unknown) => {
      throw denied(error, account) ?? error;
    });
  } finally {
    await ssh.close();
  }
}

/**
 * Opens the account's `~/.ssh` folder without following a link; with `create`, makes it first when
 * missing (mode 700, owned by the account, set through the opened folder). Null when it (or the home
 * folder) does not exist and `create` is false.
 */
async function openSshDir(account: Account, create: boolean): Promise<FileHandle | null> {
  const home = homeOf(account);
  const dir = path.join(home, '.ssh');
  const homeStat = await stat(home).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  });
  if (homeStat === null && !create) return null;
  if (homeStat === null || !homeStat.isDirectory()) {
    throw new HttpProblem(409, `the home folder of user ${account.name}, ${home}, ${homeStat === null ? 'does not exist' : 'is not a folder'}`);
  }
  let made = false;
  if (create) {
    made = await mkdir(dir, { mode: 0o700 }).then(
      () => true,
      (error: unknown) => {
        if (errorCode(error) === 'EEXIST') return false;
        throw denied(error, account) ?? error;
      },
    );
  }
  let handle: FileHandle;
  try {
    handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' && !create) return null;
    if (code === 'ENOTDIR' || code === 'ELOOP') throw notPlain(account, dir, (await lstat(dir).catch(() => null))?.isSymbolicLink() ?? false, 'a folder');
    throw error;
  }
  if (made) {
    try {
      await handle.chown(account.uid, account.gid);
      await handle.chmod(0o700);
    } catch (error) {
      await handle.close();
      throw denied(error, account) ?? error;
    }
  }
  return handle;
}

/** The text of `authorized_keys` in the opened `~/.ssh`, or null when there is none. */
async function readKeys(account: Account, ssh: FileHandle): Promise<string | null> {
  const file = path.join(homeOf(account), '.ssh', KEYS_FILE);
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO put there opens at once (and is refused below) instead of hanging.
    handle = await open(inside(ssh, KEYS_FILE), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw notPlain(account, file, true, 'a file');
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notPlain(account, file, false, 'a file');
    if (info.size > MAX_AUTHORIZED_KEYS_BYTES) {
      throw new HttpProblem(409, `${file} of user ${account.name} is larger than ${MAX_AUTHORIZED_KEYS_BYTES} bytes; chutebox does not manage it`);
    }
    return (await handle.readFile()).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** The path of an opened folder that resolves to that very folder, whatever is renamed meanwhile. */
function opened(dir: FileHandle): string {
  return `/proc/self/fd/${dir.fd}`;
}

/** A path inside an opened folder (see `opened`). */
function inside(dir: FileHandle, name: string): string {
  return `${opened(dir)}/${name}`;
}

/** The account's home; it must be an absolute path (the handlers make sure of it, this is the last guard). */
function homeOf(account: Account): string {
  if (!path.isAbsolute(account.home)) throw new HttpProblem(409, `user ${account.name} has no absolute home folder (${JSON.stringify(account.home)})`);
  return account.home;
}

function notPlain(account: Account, file: string, link: boolean, what: string): HttpProblem {
  return new HttpProblem(
    409,
    link
      ? `${file} of user ${account.name} is a symbolic link; chutebox does not follow links in a home folder: replace it with ${what}`
      : `${file} of user ${account.name} is not ${what}`,
  );
}

/** A clear 500 for a permission error: the runtime must run as root to manage other users' keys. */
function denied(error: unknown, account: Account): HttpProblem | null {
  const code = errorCode(error);
  if (code !== 'EPERM' && code !== 'EACCES') return null;
  const uid = process.getuid?.() ?? 'unknown';
  return new HttpProblem(
    500,
    `cannot write the SSH keys of user ${account.name}: permission denied (chutebox runs as uid ${uid}; it needs root to manage other users' keys)`,
  );
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}
