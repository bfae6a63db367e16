import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_INTERFACES, fakeSnapd, type FakeSnapd } from './support/fake-snapd.ts';
import { call, callAlone } from './support/http-client.ts';
import { CLI, serveArgs, useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/*
 * ParaDrop's /snapd/*, as pdtools' list-snap-interfaces, connect-snap-interfaces and create-user use it:
 * serve passes it on to a stand-in snapd on a Unix socket behind the API's auth, the emulator answers
 * from the scenario's recorded snapd, and both answer the same 503 where no snapd runs.
 */

const temp = useTempDir('chutebox-snapd-');
let snapd: FakeSnapd;
beforeAll(async () => {
  snapd = await fakeSnapd(temp.path());
});
afterAll(() => snapd.close());
const start = useChutebox();

const PASSWORD = 'snapd-password';
const basic = { authorization: `Basic ${Buffer.from(`paradrop:${PASSWORD}`).toString('base64')}` };
const NOT_RUNNING = 'snapd is not running on this device: nothing listens on';

/** serve with the password set, passing /snapd/* on to `socket`. */
async function serve(name: string, socket: string) {
  const stateDir = path.join(temp.path(), name);
  expect(spawnSync(process.execPath, [CLI, 'passwd', '--state-dir', stateDir], { input: `${PASSWORD}\n` }).status).toBe(0);
  return start(serveArgs(stateDir, path.join(temp.path(), 'no-docker.sock'), ['--snapd-socket', socket]));
}

describe('/snapd/* on serve', () => {
  it("passes a request on to snapd's socket behind the password, and answers snapd's answer", async () => {
    const server = await serve('state', snapd.socket);
    const before = snapd.seen.length;
    const refused = await call(server.url, 'GET', '/snapd/v2/interfaces');
    expect([refused.status, refused.type]).toEqual([401, 'application/problem+json']);
    expect(snapd.seen.length).toBe(before);

    const listed = await call(server.url, 'GET', '/snapd/v2/interfaces', { headers: basic });
    expect([listed.status, listed.type, listed.body]).toEqual([200, 'application/json', FAKE_INTERFACES]);
    const connect = { action: 'connect', slots: [{ slot: 'firewall-control' }], plugs: [{ snap: 'paradrop-daemon', plug: 'firewall-control' }] };
    const connected = await call<{ result: string }>(server.url, 'POST', '/snapd/v2/interfaces', { json: connect, headers: basic });
    expect([connected.status, JSON.parse(connected.body.result)]).toEqual([202, connect]);
    expect(snapd.seen.at(-1)).toMatchObject({ method: 'POST', url: '/v2/interfaces', headers: { 'content-type': 'application/json' } });
    expect(snapd.seen.at(-1)!.headers.authorization).toBeUndefined();
    const missing = await call(server.url, 'GET', '/snapd/v2/nothing?x=1', { headers: basic });
    expect([missing.status, snapd.seen.at(-1)!.url]).toEqual([404, '/v2/nothing?x=1']);
  });

  it('refuses a body over the limit (1 MiB) with a 413, before snapd sees it', async () => {
    const server = await serve('limited', snapd.socket);
    const before = snapd.seen.length;
    const big = await callAlone(server.url, 'POST', '/snapd/v2/interfaces', {
      document: { type: 'application/json', text: `"${'x'.repeat(2 << 20)}"` },
      headers: basic,
    });
    expect([big.status, big.type]).toEqual([413, 'application/problem+json']);
    expect(snapd.seen.length).toBe(before);
  });

  it('is a 503 problem naming the socket where no snapd runs', async () => {
    const socket = path.join(temp.path(), 'no-snapd.socket');
    const server = await serve('without', socket);
    const answer = await call<{ detail: string }>(server.url, 'GET', '/snapd/v2/interfaces', { headers: basic });
    expect([answer.status, answer.type, answer.body.detail]).toEqual([503, 'application/problem+json', `${NOT_RUNNING} ${socket}`]);
  });
});

describe('/snapd/* on emulate', () => {
  it("answers from the default scenario's recorded snapd, behind the login", async () => {
    const server = await start(['emulate', '--port', '0']);
    expect((await call(server.url, 'GET', '/snapd/v2/interfaces')).status).toBe(401);
    const { token } = (await call<{ token: string }>(server.url, 'POST', '/api/v1/auth/local', { json: { username: 'paradrop', password: '' } })).body;
    const bearer = { authorization: `Bearer ${token}` };
    const listed = await call<{ result: { plugs: unknown[] } }>(server.url, 'GET', '/snapd/v2/interfaces', { headers: bearer });
    expect([listed.status, listed.type, listed.body.result.plugs.length]).toEqual([200, 'application/json', 4]);
    const user = await call(server.url, 'POST', '/snapd/v2/create-user', { json: { email: 'info@paradrop.io', sudoer: true }, headers: bearer });
    expect([user.status, user.body]).toMatchObject([200, { result: { username: 'paradrop' } }]);
  });

  it('answers as serve does with nothing on its default socket, for a scenario without a recorded snapd', async () => {
    const server = await start(['emulate', '--port', '0', '--no-auth', '--scenario', 'gl-ar150']);
    const answer = await call<{ detail: string }>(server.url, 'GET', '/snapd/v2/interfaces');
    expect([answer.status, answer.type, answer.body.detail]).toEqual([503, 'application/problem+json', `${NOT_RUNNING} /run/snapd.socket`]);
  });
});
