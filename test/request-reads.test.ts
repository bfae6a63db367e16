import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipWithoutStrace, traceFiles } from './support/strace.ts';
import { CLEAN_ENV, CLI, useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/*
 * What a request reads, seen from outside the process: strace, attached to the running server, lists
 * every file it opens or stats. (Access times cannot tell: setting them is itself a change that the
 * runtime's watch on its folders reports.) Without strace the test is skipped, unless
 * CHUTEBOX_REQUIRE_STRACE is set, as in CI.
 */

const temp = useTempDir('chutebox-reads-test-');
const start = useChutebox();
const PASSWORD = 'correct horse battery';
const skipped = skipWithoutStrace('test/request-reads.test.ts');

describe.skipIf(skipped)('chutebox serve: what a request reads', () => {
  it('opens no file of the state dir for requests with a token, Basic credentials or a wrong password, until chutebox passwd changes one', async () => {
    const dir = await temp.folder('serve');
    const stateDir = path.join(dir, 'state');
    const passwd = (password: string) => spawnSync(process.execPath, [CLI, 'passwd', '--state-dir', stateDir], { input: `${password}\n`, env: CLEAN_ENV });
    expect(passwd(PASSWORD).status).toBe(0);
    const server = await start(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, '--docker-socket', path.join(dir, 'no-engine.sock')]);
    const login = await fetch(`${server.url}/api/v1/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'paradrop', password: PASSWORD }),
    });
    const { token } = (await login.json()) as { token: string };
    const get = (authorization: string) => fetch(`${server.url}/api/v1/info/features`, { headers: { authorization } });
    const basic = (password: string) => `Basic ${Buffer.from(`paradrop:${password}`).toString('base64')}`;
    expect((await get(`Bearer ${token}`)).status).toBe(200);
    expect((await get(basic(PASSWORD))).status).toBe(200);
    // The device configuration starts after the API listens (pdconf rendered, hostconfig.yaml
    // written); a read of the host configuration waits for that start, so nothing of it is traced.
    const hostConfig = await fetch(`${server.url}/api/v1/config/hostconfig`, { headers: { authorization: `Bearer ${token}` } });
    expect(hostConfig.status).toBe(200);

    /**
     * The state dir's files a request opened: not the network folders, which the event sources look
     * for every 2 s until serve makes them (runtime/events/sources/folder-watch.ts), whatever the requests.
     */
    const networkFolders = new Set(['dnsmasq', 'hostapd'].map((name) => path.join(stateDir, 'networks', name)));
    const ofStateDir = (files: string[]) => files.filter((file) => file.startsWith(stateDir) && !networkFolders.has(file));
    const unchanged = await traceFiles(server.child.pid!);
    for (let i = 0; i < 20; i++) {
      expect((await get(`Bearer ${token}`)).status).toBe(200);
      expect((await get(basic(PASSWORD))).status).toBe(200);
    }
    expect((await get(basic('wrong'))).status).toBe(401);
    expect(ofStateDir(await unchanged.stop())).toEqual([]);

    // A new password file is read by the next request, and by that one only (and its folder watched again).
    expect(passwd('another password').status).toBe(0);
    const changed = await traceFiles(server.child.pid!);
    for (let i = 0; i < 5; i++) expect((await get(basic('another password'))).status).toBe(200);
    expect((await get(basic(PASSWORD))).status).toBe(401);
    const read = ofStateDir(await changed.stop());
    expect(read.filter((file) => file.endsWith('passwd.json')).length).toBeGreaterThan(0);
    expect(new Set(read)).toEqual(new Set([path.join(stateDir, 'auth'), path.join(stateDir, 'auth', 'passwd.json')]));
  });
});
