import { reusingLast } from '../core/reusing-last.ts';
import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { keyLines } from '../parsers/authorized-keys.ts';
import { SshKeyListSchema, type SshKeyList, SshKeysRequestSchema } from './schemas.ts';
import { userAccount } from './user-account.ts';

export const route = defineRoute('GET /api/v1/config/sshKeys/:user', "A user's authorized SSH keys");
export const request = SshKeysRequestSchema;
export const response = SshKeyListSchema;

/**
 * The key lines of the user's `~/.ssh/authorized_keys` as written (options and comments kept), in
 * file order; [] when the file does not exist.
 *
 * @throws HttpProblem 400 for a bad user name, 404 for a user the passwd database lacks (see `userAccount`).
 * @example
 * await handle({ params: { user: 'paradrop' }, … }, device) // ['ssh-ed25519 AAAAC3Nza… paradrop@default-scenario']
 */
export const handle: Handler<SshKeyList> = async (input, device) => {
  const account = await userAccount(input, device);
  return keyLinesOf(device, await device.accounts.authorizedKeys(account));
};

/** The key lines of an authorized_keys file, split again only when the file changed. */
const keyLinesOf = reusingLast(keyLines);
