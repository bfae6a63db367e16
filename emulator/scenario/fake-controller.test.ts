import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { fakeController, fakeUserToken, GUEST_EMAIL, REFUSED_APITOKEN, UNKNOWN_ROUTER_ID } from './fake-controller.ts';

const BASE = 'https://paradrop.org';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("the emulator's built-in controller", () => {
  it('accepts any router and any non-empty token, answering the router record', async () => {
    const controller = fakeController();
    const answer = await controller.fetch(`${BASE}/api/routers/lab-1`, { headers: bearer('t0k3n') });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ _id: 'lab-1', name: 'lab-1' });
    expect(controller.log().checks).toBe(1);
  });

  it('answers 401 for the token "refuse" or no token, and 404 for the router "unknown-router"', async () => {
    const controller = fakeController();
    expect((await controller.fetch(`${BASE}/api/routers/lab-1`, { headers: bearer(REFUSED_APITOKEN) })).status).toBe(401);
    expect((await controller.fetch(`${BASE}/api/routers/lab-1`)).status).toBe(401);
    expect((await controller.fetch(`${BASE}/api/routers/${UNKNOWN_ROUTER_ID}`, { headers: bearer('t0k3n') })).status).toBe(404);
  });

  it('counts the telemetry reports it receives and keeps the last one, under any base path', async () => {
    const controller = fakeController();
    for (const n of [1, 2]) {
      const answer = await controller.fetch(`${BASE}/prefix/api/routers/lab-1/telemetry`, {
        method: 'POST',
        headers: { ...bearer('t0k3n'), 'content-type': 'application/json' },
        body: JSON.stringify({ n }),
      });
      expect(answer.status).toBe(200);
    }
    expect(controller.log()).toEqual({ checks: 0, reports: 2, lastReport: { n: 2 }, lastRouterId: 'lab-1', routers: 1 });
  });

  it('counts the routers that reported, up to as many as it was made to count', async () => {
    const controller = fakeController({ routers: 3 });
    for (const id of ['a', 'b', 'a', 'c', 'd', 'e']) {
      await controller.fetch(`${BASE}/api/routers/${id}/telemetry`, {
        method: 'POST',
        headers: { ...bearer('t0k3n'), 'content-type': 'application/json' },
        body: '{}',
      });
    }
    expect(controller.log()).toMatchObject({ reports: 6, routers: 3 });
  });

  it('answers 404 elsewhere, 405 to another method, 400 to a report that is not JSON', async () => {
    const controller = fakeController();
    expect((await controller.fetch(`${BASE}/api/chutes`, { headers: bearer('t') })).status).toBe(404);
    expect((await controller.fetch(`${BASE}/api/routers/lab-1`, { method: 'DELETE', headers: bearer('t') })).status).toBe(405);
    expect((await controller.fetch(`${BASE}/api/routers/lab-1/telemetry`, { method: 'POST', headers: bearer('t'), body: 'not json' })).status).toBe(400);
    expect(controller.log().reports).toBe(0);
  });

  it('rejects with the reason of an aborted signal, as fetch does', async () => {
    const abort = new AbortController();
    const reason = new Error('stopped');
    abort.abort(reason);
    await expect(fakeController().fetch(`${BASE}/api/routers/lab-1`, { headers: bearer('t'), signal: abort.signal })).rejects.toBe(reason);
  });

  it("issues a user's token as docs/emulator.md says, and vouches for it: the user, and their role on the router", async () => {
    const controller = fakeController();
    const issued = await controller.fetch(`${BASE}/auth/local`, { method: 'POST', body: JSON.stringify({ email: 'dev@example.com', password: 'pw' }) });
    const { token } = (await issued.json()) as { token: string };
    const mac = createHmac('sha256', 'chutebox-fake-controller').update('dev@example.com').digest('base64url');
    expect(token).toBe(`fake-user.${Buffer.from('dev@example.com').toString('base64url')}.${mac}`);
    expect(await fakeUserToken('dev@example.com')).toBe(token);
    expect(await (await controller.fetch(`${BASE}/api/users/me`, { headers: bearer(token) })).json()).toEqual({
      _id: 'user-dev@example.com',
      email: 'dev@example.com',
    });
    expect(await (await controller.fetch(`${BASE}/api/routers/lab-1`, { headers: bearer(token) })).json()).toEqual({
      _id: 'lab-1',
      name: 'lab-1',
      access_rights: [{ user_id: 'user-dev@example.com', role: 'owner' }],
    });
    const guest = await fakeUserToken(GUEST_EMAIL);
    expect(await (await controller.fetch(`${BASE}/api/routers/lab-1`, { headers: bearer(guest) })).json()).toMatchObject({ access_rights: [] });
  });

  it('refuses a token of the user-token form it did not issue, and a login without a password', async () => {
    const controller = fakeController();
    const forged = `fake-user.${Buffer.from('dev@example.com').toString('base64url')}.AAAA`;
    expect((await controller.fetch(`${BASE}/api/users/me`, { headers: bearer(forged) })).status).toBe(401);
    expect((await controller.fetch(`${BASE}/api/routers/lab-1`, { headers: bearer(forged) })).status).toBe(401);
    expect((await controller.fetch(`${BASE}/api/users/me`, { headers: bearer('t0k3n') })).status).toBe(401);
    expect((await controller.fetch(`${BASE}/auth/local`, { method: 'POST', body: JSON.stringify({ email: 'dev@example.com' }) })).status).toBe(401);
  });
});
