import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeController, fakeUserToken, GUEST_EMAIL } from '../emulator/scenario/fake-controller.ts';
import type { InputProblem } from './support/call-function.ts';
import { callApi, type HttpAnswer } from './support/http-client.ts';
import { useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

/**
 * ParaDrop's `POST /api/v1/auth/cloud`: a token the controller issued to a user, checked with the
 * controller the device is provisioned with. On `chutebox serve` that controller is the emulator's
 * fake one on a socket of this test; on `chutebox emulate` it is built in. The fake controller issues
 * a user's token at `POST /auth/local` and vouches for it (emulator/scenario/fake-controller.ts).
 */

const temp = useTempDir('chutebox-cloud-login-');
const start = useChutebox();
const DEVELOPER = 'dev@example.com';

const basic = { authorization: `Basic ${Buffer.from('paradrop:').toString('base64')}` };
const cloudLogin = (server: Started, body: unknown) => callApi<{ token: string; username: string }>(server, 'POST', '/auth/cloud', body);
const provision = (server: Started, pdserver: string, headers: Record<string, string>) =>
  callApi(
    server,
    'POST',
    '/config/provision',
    { routerId: 'r1', apitoken: 'device-t0k3n', pdserver, wampRouter: 'ws://127.0.0.1:9/ws' },
    'application/json',
    headers,
  );

/** Checks a cloud login that worked: a token for the user that opens the API. */
async function expectLoggedIn(server: Started, answer: HttpAnswer<{ token: string; username: string }>): Promise<void> {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body.username).toBe(DEVELOPER);
  const features = await callApi(server, 'GET', '/info/features', undefined, undefined, { authorization: `Bearer ${answer.body.token}` });
  expect(features.status).toBe(200);
}

describe('chutebox serve: POST /api/v1/auth/cloud against the controller it is provisioned with', () => {
  const controller = fakeController();
  let socket: Server;
  let url: string;
  let server: Started;
  let admin: Record<string, string>;

  beforeAll(async () => {
    // The fake controller, on a socket: serve is a process of its own.
    socket = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
      const answer = await controller.fetch(`http://${request.headers.host}${request.url}`, {
        method: request.method,
        headers: request.headers as Record<string, string>,
        body,
      });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
    await new Promise<void>((resolve) => socket.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(socket.address() as AddressInfo).port}`;
    server = await start(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', await temp.folder('state')]);
    expect((await callApi(server, 'POST', '/password/change', { password: 'local secret' })).status).toBe(200);
    admin = { authorization: `Basic ${Buffer.from('paradrop:local secret').toString('base64')}` };
  });

  afterAll(async () => {
    await new Promise((resolve) => socket?.close(resolve));
  });

  it('answers 409 while the device is not provisioned', async () => {
    const answer = await cloudLogin(server, { token: await fakeUserToken(DEVELOPER) });
    expect(answer.status, answer.text).toBe(409);
    expect(answer.type).toBe('application/problem+json');
  });

  it("answers a token of the device for the user of a token the controller issued, without the user's local account", async () => {
    expect((await provision(server, url, admin)).status).toBe(200);
    const issued = await fetch(`${url}/auth/local`, { method: 'POST', body: JSON.stringify({ email: DEVELOPER, password: 'at the controller' }) });
    const { token } = (await issued.json()) as { token: string };
    await expectLoggedIn(server, await cloudLogin(server, { token }));
  });

  it('refuses a token the controller did not issue with 401, a user without rights on the router with 403, and no token with 422', async () => {
    const issued = await fakeUserToken(DEVELOPER);
    expect((await cloudLogin(server, { token: `${issued.slice(0, -4)}AAAA` })).status).toBe(401);
    expect((await cloudLogin(server, { token: 'not-a-token' })).status).toBe(401);
    const guest = await cloudLogin(server, { token: await fakeUserToken(GUEST_EMAIL) });
    expect(guest.status, guest.text).toBe(403);
    const missing = await cloudLogin(server, {});
    expect(missing.status).toBe(422);
    expect((missing.body as unknown as InputProblem).errors.map((error) => error.path)).toEqual(['body.token']);
  });
});

describe('chutebox emulate: POST /api/v1/auth/cloud against its built-in fake controller', () => {
  it('answers a token for the user of a token the fake controller issued, once provisioned', async () => {
    const server = await start(['emulate', '--port', '0', '--scenario', 'gl-ar150']);
    expect((await provision(server, 'https://controller.invalid', basic)).status).toBe(200);
    await expectLoggedIn(server, await cloudLogin(server, { token: await fakeUserToken(DEVELOPER) }));
    expect((await cloudLogin(server, { token: await fakeUserToken(GUEST_EMAIL) })).status).toBe(403);
  });
});
