import { mkdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { authFiles, localAuth, readUsers, setPassword } from './auth/local.ts';
import { createHostDevice, DEFAULT_CONTAINER_NETWORK, DEFAULT_STATE_DIR, HOST_DEVICE_FLAGS, hostDeviceOptions } from './host-device.ts';
import { createApp } from './http/app.ts';
import { listen } from './http/listen.ts';
import { listenOptions, optionsHelp, parseMegabytes, parsePort, readOptions, UPLOAD_LIMIT_OPTION, UsageError } from './options.ts';

const STATE_DIR = { flag: 'state-dir', env: 'CHUTEBOX_STATE_DIR', default: DEFAULT_STATE_DIR, value: 'DIR', description: 'where the runtime keeps its state (created 0700)' } as const;

const SERVE_OPTIONS = [
  ...listenOptions('0.0.0.0', 'functions/ beside the runtime bundle'),
  STATE_DIR,
  ...HOST_DEVICE_FLAGS,
  { flag: 'container-network', env: 'CHUTEBOX_CONTAINER_NETWORK', default: DEFAULT_CONTAINER_NETWORK, value: 'MODE', description: 'network mode of the chute containers: bridge, host, none or a network name' },
  UPLOAD_LIMIT_OPTION,
] as const;

const PASSWD_OPTIONS = [STATE_DIR, { flag: 'user', default: 'paradrop', value: 'NAME', description: 'account to set the password of' }] as const;

const SERVE_HELP = optionsHelp('chutebox serve [options]', 'Serves the device API of this machine over HTTP. A flag wins over its environment variable.', SERVE_OPTIONS);
const PASSWD_HELP = optionsHelp(
  'chutebox passwd [options] < password',
  'Sets the password of an account, read from the first line of stdin. Until a password is set, `chutebox serve` answers only clients on this machine.',
  PASSWD_OPTIONS,
);

/**
 * `chutebox serve`: the device API on this machine. Before it listens, it repairs what a crash of an
 * earlier runtime cut short and reconciles the chutes with the engine (`HostDevice.recover`). Prints
 * `listening on http://HOST:PORT` once ready; SIGTERM and SIGINT close it gracefully.
 *
 * @example
 * await serve(['--host', '127.0.0.1', '--port', '0', '--state-dir', '/tmp/chutebox']);
 */
export async function serve(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values, help } = readOptions(SERVE_OPTIONS, argv, env);
  if (help) return void process.stdout.write(SERVE_HELP);
  const port = parsePort(values.port!);
  const uploadLimit = parseMegabytes(values['upload-limit']!, 'upload-limit');
  const deviceOptions = { ...hostDeviceOptions(values, values['state-dir']!), containerNetwork: values['container-network']! };
  const functionsDir = values.functions ?? fileURLToPath(new URL('./functions/', import.meta.url));
  const stateDir = values['state-dir']!;

  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const auth = await localAuth(stateDir);
  if (Object.keys(await readUsers(authFiles(stateDir).passwd)).length === 0) {
    console.error('no password is set: only clients on this machine are served; run `chutebox passwd` to set one');
  }
  const device = createHostDevice(deviceOptions);
  await device.recover();
  const app = await createApp({ functionsDir, device, auth, corsOrigin: values['cors-origin']!, uploadLimit });
  const server = await listen(app, { host: values.host!, port });
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Only now is the server ready, signal handling included: a supervisor may stop it at once.
  process.stdout.write(`listening on ${server.url}\n`);
}

/**
 * `chutebox passwd`: sets an account's password from the first line of stdin (never echoed, never
 * stored in clear).
 *
 * @example
 * // echo 'correct horse' | chutebox passwd --state-dir /var/lib/chutebox
 */
export async function passwd(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values, help } = readOptions(PASSWD_OPTIONS, argv, env);
  if (help) return void process.stdout.write(PASSWD_HELP);
  const user = values.user!;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(user)) throw new UsageError(`--user must be 1 to 64 letters, digits, '.', '_' or '-', not ${JSON.stringify(user)}`);
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
