import { defineRoute } from '../core/route.ts';
import type { Handler } from '../core/handler.ts';
import { HttpProblem } from '../core/problem.ts';
import { validateAsync } from '../core/validate.ts';
import { appendLine, keyLines, parseAuthorizedKeys, parseKeyLine, sameKey, type AuthorizedKey } from '../parsers/authorized-keys.ts';
import { SshKeyBodySchema } from './ssh-key-body.ts';
import { SshKeyAddRequestSchema, SshKeyListSchema, type SshKeyList } from './schemas.ts';
import { userAccount } from './user-account.ts';

export const route = defineRoute('POST /api/v1/config/sshKeys/:user', "Add a public key to a user's authorized SSH keys");
export const request = SshKeyAddRequestSchema;
export const response = SshKeyListSchema;

/**
 * Appends the key (`{key}`, checked by `publicKeyProblem`) as one line to the user's
 * `~/.ssh/authorized_keys`, every existing line kept as it was, and answers the new list as GET does.
 * The device writes the file atomically, mode 600 in a `~/.ssh` of mode 700, owned by the user.
 *
 * @throws HttpProblem 400 for a bad user name, 404 for an unknown user (both before the body is
 *   read), 422 naming `body.key` for a key that is not acceptable, 409 when the user already has the
 *   same key (same type and key data, whatever the options or comment). Nothing is written then.
 * @example
 * await handle({ params: { user: 'paradrop' }, body: { key: 'ssh-ed25519 AAAAC3Nza… alice@laptop' }, … }, device)
 * // ['ssh-ed25519 AAAAC3Nza… paradrop@default-scenario', 'ssh-ed25519 AAAAC3Nza… alice@laptop']
 */
export const handle: Handler<SshKeyList> = async (input, device) => {
  const account = await userAccount(input, device);
  const added = parseKeyLine((await validateAsync(SshKeyBodySchema, input.body)).key)!;
  let duplicate: AuthorizedKey | undefined;
  let lines: string[] = [];
  await device.accounts.updateAuthorizedKeys(account, (current) => {
    duplicate = parseAuthorizedKeys(current ?? '').find((key) => sameKey(key, added));
    if (duplicate !== undefined) return null;
    const text = appendLine(current, added.line);
    lines = keyLines(text);
    return text;
  });
  if (duplicate !== undefined) {
    const known = duplicate.comment === null ? '' : ` (commented ${JSON.stringify(duplicate.comment)})`;
    throw new HttpProblem(409, `user ${account.name} already has this ${added.type} key${known}`);
  }
  return lines;
};
