import * as z from 'zod/mini';
import type { Account, Accounts, Device } from '../../functions/core/device/index.ts';
import { findAccount } from '../../functions/parsers/passwd.ts';
import { PASSWD_FILE } from '../../runtime/scenario/format.ts';

/** The device path of an account's `~/.ssh/authorized_keys`. */
export function authorizedKeysFile(account: Account): string {
  return `${account.home.replace(/\/+$/, '')}/.ssh/authorized_keys`;
}

/** The key file of an account, by its device path: `<home>/.ssh/authorized_keys`. */
const KEY_FILE = /^\/(?:[^/\0]+\/)*\.ssh\/authorized_keys$/;

/**
 * The accounts' part of an emulator state (emulator/emulator-state.ts): the `authorized_keys` files
 * written since the start (`POST /api/v1/config/sshKeys/<user>`), by device path, each file's whole
 * text: public keys only. A key file not listed is as the scenario recorded it.
 */
export const AccountsStateSchema = z.strictObject({
  authorizedKeys: z.record(
    z.string().check(z.regex(KEY_FILE, { error: 'must be the path of an authorized_keys file: <home>/.ssh/authorized_keys' })),
    z.string(),
  ),
});
export type AccountsState = z.infer<typeof AccountsStateSchema>;

/** The Device's `accounts`, and what has been written of them. */
export type ScenarioAccounts = Accounts & {
  /** The key files written since the start (or since the `state` given), sorted by path. */
  snapshot(): AccountsState;
};

/**
 * The accounts of a scenario: the passwd database is its `etc/passwd` (empty without it), an
 * account's keys are `<home>/.ssh/authorized_keys` of the scenario (none without it), both read
 * through `files` (`scenarioFiles` of the scenario folder). A key file written with
 * `updateAuthorizedKeys` is kept in memory, one update at a time, and read from there on: the
 * scenario folder is never written, and a restart serves the recordings again. `snapshot()` answers
 * the files written; `state` starts from the files of a snapshot (a restore makes the accounts anew).
 *
 * @example
 * const accounts = scenarioAccounts(rootedFiles('fixtures/scenarios/default'));
 * await accounts.authorizedKeys({ name: 'paradrop', uid: 1000, gid: 1000, home: '/home/paradrop' }) // 'ssh-ed25519 AAAAC3Nza… paradrop@default-scenario\n'
 */
export function scenarioAccounts(files: Pick<Device, 'readFile'>, state?: AccountsState): ScenarioAccounts {
  const written = new Map<string, string>(Object.entries(state?.authorizedKeys ?? {}));
  let queue: Promise<unknown> = Promise.resolve();

  /** The keys written since the start, else the scenario's file. */
  function authorizedKeys(account: Account): Promise<string | null> {
    const file = authorizedKeysFile(account);
    return written.has(file) ? Promise.resolve(written.get(file)!) : files.readFile(file);
  }

  return {
    passwd: async () => (await files.readFile(PASSWD_FILE)) ?? '',
    authorizedKeys,
    updateAuthorizedKeys(account, update) {
      const done = queue.then(async () => {
        const text = update(await authorizedKeys(account));
        if (text !== null) written.set(authorizedKeysFile(account), text);
      });
      queue = done.catch(() => {});
      return done;
    },
    snapshot: () => ({ authorizedKeys: Object.fromEntries([...written].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) }),
  };
}

/** What `memoryAccounts` starts with. */
export interface MemoryAccountsSpec {
  /** The passwd database, verbatim (`/etc/passwd` format); empty when not given. */
  passwd?: string;
  /** User name → the text of that user's `authorized_keys`; a user not listed has no such file. */
  keys?: Record<string, string>;
}

/**
 * Accounts held in memory, for handler tests and the test device: the same implementation as a
 * scenario's (`scenarioAccounts`), over the given passwd text and key files.
 *
 * @throws Error when `keys` names a user that `passwd` lacks.
 * @example
 * const accounts = memoryAccounts({ passwd: 'paradrop:x:1000:1000::/home/paradrop:/bin/ash\n', keys: { paradrop: 'ssh-ed25519 AAAAC3Nza… me\n' } });
 */
export function memoryAccounts(spec: MemoryAccountsSpec = {}): Accounts {
  const passwd = spec.passwd ?? '';
  const files = new Map<string, string>([[PASSWD_FILE, passwd]]);
  for (const [name, text] of Object.entries(spec.keys ?? {})) {
    const account = findAccount(passwd, name);
    if (account === null) throw new Error(`memoryAccounts: keys are given for ${name}, whom the passwd text lacks`);
    files.set(authorizedKeysFile(account), text);
  }
  return scenarioAccounts({ readFile: async (file) => files.get(file) ?? null });
}
