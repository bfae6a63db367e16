import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InputProblem } from './support/call-function.ts';
import { callApi, type HttpAnswer } from './support/http-client.ts';
import { useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * ParaDrop's `POST /api/v1/password/change` and `/clear` (what `pdtools node set-password` sends) on
 * `chutebox serve`, which starts without a password, and on `chutebox emulate`, whose account is
 * `paradrop` with an empty password.
 */

const temp = useTempDir('chutebox-passwords-');
const start = useChutebox();

const login = (server: Started, username: string, password: string) => callApi<{ token?: string }>(server, 'POST', '/auth/local', { username, password });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** A password change with `headers`, the body sent as JSON, or as it is when a string. */
const change = (server: Started, body: unknown, headers: Record<string, string> = {}) =>
  callApi(server, 'POST', '/password/change', body, 'application/json', headers);
const clear = (server: Started, headers: Record<string, string> = {}) => callApi(server, 'POST', '/password/clear', undefined, undefined, headers);
const features = (server: Started, headers: Record<string, string> = {}) => callApi(server, 'GET', '/info/features', undefined, undefined, headers);

/** The token of a login that must succeed. */
async function tokenOf(server: Started, username: string, password: string): Promise<string> {
  const answer = await login(server, username, password);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.token!;
}

/** The field paths of a 422. */
function fieldsOf(answer: HttpAnswer): string[] {
  expect(answer.status, answer.text).toBe(422);
  expect(answer.type).toBe('application/problem+json');
  return (answer.body as InputProblem).errors.map((error) => error.path);
}

describe('chutebox serve: POST /api/v1/password/change and /clear', () => {
  let serves = 0;
  /** `chutebox serve` on a state dir of its own, without a password. */
  async function serve() {
    const stateDir = await temp.folder(`state-${++serves}`);
    const server = await start(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir]);
    return { server, passwd: path.join(stateDir, 'auth', 'passwd.json') };
  }

  it('sets the first password from the device itself, stored only as a scrypt hash: then every request needs credentials', async () => {
    const { server, passwd } = await serve();
    expect((await features(server)).status).toBe(200);
    const answer = await change(server, { username: 'paradrop', password: 'first secret' });
    expect(answer).toMatchObject({ status: 200, type: 'application/json', body: { success: true } });
    const text = await readFile(passwd, 'utf8');
    expect(text).not.toContain('first secret');
    expect(JSON.parse(text)).toEqual({ users: { paradrop: expect.stringMatching(/^scrypt\$/) } });
    expect((await stat(passwd)).mode & 0o777).toBe(0o600);
    expect((await features(server)).status).toBe(401);
    expect((await features(server, bearer(await tokenOf(server, 'paradrop', 'first secret')))).status).toBe(200);
  });

  it("changes the password of the account the body names, or paradrop's, for a client with credentials only", async () => {
    const { server } = await serve();
    await change(server, { password: 'first secret' });
    const token = await tokenOf(server, 'paradrop', 'first secret');
    expect((await change(server, { password: 'second secret' })).status).toBe(401);
    expect((await change(server, { username: 'paradrop', password: 'second secret' }, bearer(token))).status).toBe(200);
    expect((await login(server, 'paradrop', 'first secret')).status).toBe(401);
    await tokenOf(server, 'paradrop', 'second secret');
  });

  it('refuses bad input with a 4xx naming the field, and changes nothing', async () => {
    const { server, passwd } = await serve();
    await change(server, { password: 'first secret' });
    const auth = bearer(await tokenOf(server, 'paradrop', 'first secret'));
    const before = await readFile(passwd, 'utf8');
    expect(fieldsOf(await change(server, { password: '' }, auth))).toEqual(['body.password']);
    expect(fieldsOf(await change(server, { username: 'paradrop' }, auth))).toEqual(['body.password']);
    expect(fieldsOf(await change(server, { username: 'bob', password: 'other secret' }, auth))).toEqual(['body.username']);
    expect(fieldsOf(await change(server, { username: 'no spaces', password: 'other secret' }, auth))).toEqual(['body.username']);
    expect(fieldsOf(await change(server, undefined, auth))).toEqual(['body']);
    expect((await change(server, '{"password":', auth)).status).toBe(400);
    expect(await readFile(passwd, 'utf8')).toBe(before);
    await tokenOf(server, 'paradrop', 'first secret');
  });

  it('clears every password: the device is served to its own clients only, without credentials, and no login succeeds', async () => {
    const { server, passwd } = await serve();
    await change(server, { password: 'first secret' });
    const token = await tokenOf(server, 'paradrop', 'first secret');
    expect((await clear(server)).status).toBe(401);
    expect(await clear(server, bearer(token))).toMatchObject({ status: 200, body: { success: true } });
    expect(JSON.parse(await readFile(passwd, 'utf8'))).toEqual({ users: {} });
    expect((await features(server)).status).toBe(200);
    expect((await login(server, 'paradrop', 'first secret')).status).toBe(401);
    expect((await login(server, 'paradrop', '')).status).toBe(401);
  });
});

describe('chutebox emulate: POST /api/v1/password/change and /clear', () => {
  it("changes the emulator's account, and clearing gives back its own account (paradrop, empty password)", async () => {
    const server = await start(['emulate', '--port', '0', '--scenario', 'gl-ar150']);
    const auth = bearer(await tokenOf(server, 'paradrop', ''));
    expect((await change(server, { password: 'new secret' })).status).toBe(401);
    expect(fieldsOf(await change(server, { password: '' }, auth))).toEqual(['body.password']);
    await tokenOf(server, 'paradrop', '');
    expect((await change(server, { username: 'paradrop', password: 'new secret' }, auth)).body).toEqual({ success: true });
    expect((await login(server, 'paradrop', '')).status).toBe(401);
    const changed = bearer(await tokenOf(server, 'paradrop', 'new secret'));
    expect((await clear(server, changed)).body).toEqual({ success: true });
    expect((await login(server, 'paradrop', 'new secret')).status).toBe(401);
    await tokenOf(server, 'paradrop', '');
  });

  it('answers 404 with --no-auth, where no account exists', async () => {
    const server = await start(['emulate', '--port', '0', '--no-auth', '--scenario', 'gl-ar150']);
    expect((await change(server, { password: 'new secret' })).status).toBe(404);
  });
});
