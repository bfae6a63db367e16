import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { basicAuth, call, type HttpAnswer } from './http-client.ts';
import { CLI, type Started } from './spawn.ts';

/*
 * The auth of the pages the runtime serves behind the API's credentials (the docs page at /docs,
 * the portal at /), as a browser and a script meet it: the checks of test/docs-page.test.ts and
 * test/portal-page.test.ts.
 */

/** The account of an emulator, which has no password. */
const ACCOUNT = { username: 'paradrop', password: '' };

/**
 * A page of an emulator with auth on, asked without credentials (`anonymous`), with a wrong password
 * (`wrong`), with the account's Basic credentials (`account`) and with a token of its login (`token`).
 *
 * @example
 * const { anonymous, account } = await pageAnswersOnEmulator(server.url, '/docs');
 */
export async function pageAnswersOnEmulator(url: string, page: string): Promise<Record<'anonymous' | 'wrong' | 'account' | 'token', HttpAnswer>> {
  const login = await call<{ token: string }>(url, 'POST', '/api/v1/auth/local', { json: ACCOUNT });
  return {
    anonymous: await call(url, 'GET', page),
    wrong: await call(url, 'GET', page, { headers: basicAuth(ACCOUNT.username, 'wrong') }),
    account: await call(url, 'GET', page, { headers: basicAuth(ACCOUNT.username, ACCOUNT.password) }),
    token: await call(url, 'GET', page, { headers: { authorization: `Bearer ${login.body.token}` } }),
  };
}

/**
 * A page of `chutebox serve` on a fresh state folder in `dir` (and no engine): asked by the device
 * itself while no password is set (`open`), then, after `chutebox passwd` set `password` and serve
 * started again, without credentials (`refused`) and with the password (`page`).
 *
 * @example
 * const { open, refused, page } = await pageAnswersOnServe(start, temp.path(), '/', 'portal-password');
 */
export async function pageAnswersOnServe(
  start: (args: string[]) => Promise<Started>,
  dir: string,
  page: string,
  password: string,
): Promise<Record<'open' | 'refused' | 'page', HttpAnswer>> {
  const stateDir = path.join(dir, 'state');
  const args = ['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, '--docker-socket', path.join(dir, 'no-docker.sock')];
  const fresh = await start(args);
  const open = await call(fresh.url, 'GET', page);
  await fresh.stop();
  const passwd = spawnSync(process.execPath, [CLI, 'passwd', '--state-dir', stateDir], { input: `${password}\n` });
  if (passwd.status !== 0) throw new Error(`chutebox passwd failed: ${passwd.stderr}`);
  const server = await start(args);
  return { open, refused: await call(server.url, 'GET', page), page: await call(server.url, 'GET', page, { headers: basicAuth('paradrop', password) }) };
}
