import type { Account, Device } from '../core/device/index.ts';
import type { FunctionInput } from '../core/handler.ts';
import { HttpProblem } from '../core/problem.ts';
import { reusingLast } from '../core/reusing-last.ts';
import { parsePasswd } from '../parsers/passwd.ts';

/**
 * A user name as `useradd` takes it: a lower-case letter or `_`, then lower-case letters, digits,
 * `_` or `-`, optionally ending in `$` (machine accounts), 32 characters at most. It can never hold a
 * slash, a dot or a colon.
 */
export const USER_NAME = /^(?=.{1,32}$)[a-z_][a-z0-9_-]*\$?$/;

/** What a user name (`USER_NAME`) must be, as an input error's message. */
export const USER_NAME_MESSAGE =
  'must be a user name: a lower-case letter or _, then lower-case letters, digits, _ or -, optionally ending in $, 32 characters at most';

/**
 * The account of the `<user>` path parameter, from the device's passwd database. The name is checked
 * before anything is read.
 *
 * @throws HttpProblem 400 naming `params.user` for a name that is not a user name; 404 when the passwd
 *   database has no such user; 409 when its home is not an absolute path (no `~/.ssh` to speak of).
 * @example
 * await userAccount({ params: { user: 'paradrop' }, … }, device) // { name: 'paradrop', uid: 1000, gid: 1000, home: '/home/paradrop' }
 */
export async function userAccount(input: FunctionInput, device: Device): Promise<Account> {
  const name = input.params.user ?? '';
  if (!USER_NAME.test(name)) {
    throw new HttpProblem(400, `bad path parameter: params.user ${USER_NAME_MESSAGE}`, { errors: [{ path: 'params.user', message: USER_NAME_MESSAGE }] });
  }
  const account = accountsOf(device, await device.accounts.passwd()).find((each) => each.name === name) ?? null;
  if (account === null) throw new HttpProblem(404, `no user named ${name} in the passwd database of this device`);
  if (!account.home.startsWith('/')) {
    throw new HttpProblem(409, `user ${name} has no home folder to keep SSH keys in (its home in the passwd database is ${JSON.stringify(account.home)})`);
  }
  return account;
}

/** The passwd database's accounts, parsed again only when its text changed. */
const accountsOf = reusingLast(parsePasswd);
