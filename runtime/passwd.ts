import { mkdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { authFiles, setPassword } from './auth/local.ts';
import { ACCOUNT_NAME } from './auth/policy.ts';
import { STATE_DIR_OPTION } from './host-device.ts';
import { optionsHelp } from './options-help.ts';
import { readOptions, UsageError } from './options.ts';

const PASSWD_OPTIONS = [STATE_DIR_OPTION, { flag: 'user', default: 'paradrop', value: 'NAME', description: 'account to set the password of' }] as const;

const PASSWD_HELP = optionsHelp(
  'chutebox passwd [options] < password',
  'Sets the password of an account, read from the first line of stdin. Until a password is set, `chutebox serve` answers only clients on this machine.',
  PASSWD_OPTIONS,
);

/**
 * `chutebox passwd`: sets an account's password from the first line of stdin (never echoed, never
 * stored in clear).
 *
 * @example
 * // echo 'correct horse' | chutebox passwd --state-dir /var/lib/chutebox
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values, help } = readOptions(PASSWD_OPTIONS, argv, env);
  if (help) return void process.stdout.write(PASSWD_HELP);
  const user = values.user!;
  if (!ACCOUNT_NAME.test(user)) throw new UsageError(`--user must be 1 to 64 letters, digits, '.', '_' or '-', not ${JSON.stringify(user)}`);
  const password = await readPassword(`new password for ${user}: `);
  if (password === '') throw new UsageError('refusing an empty password: give the new password on the first line of stdin');
  const stateDir = values['state-dir']!;
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  await setPassword(stateDir, user, password);
  process.stdout.write(`password of ${user} set in ${authFiles(stateDir).passwd}\n`);
}

/** The first line of stdin; on a terminal, after a prompt on stderr and without echo. */
async function readPassword(prompt: string): Promise<string> {
  const terminal = process.stdin.isTTY === true;
  if (terminal) process.stderr.write(prompt);
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const lines = createInterface({ input: process.stdin, output: terminal ? silent : undefined, terminal, crlfDelay: Infinity });
  try {
    for await (const line of lines) return line;
    return '';
  } finally {
    lines.close();
    if (terminal) process.stderr.write('\n');
  }
}
