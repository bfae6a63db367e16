import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '../../test/support/event-stream-client.ts';
import { addressOthers, deviceAnswers as answers } from '../../test/support/fleet-answers.ts';
import { DIST_FUNCTIONS } from '../../test/support/test-bundles.ts';
import { startFleet, type RunningFleet, type StartFleetOptions } from './start-fleet.ts';

/*
 * A fleet that keeps few devices built: a device that leaves is built again as it was, and one that
 * something holds (an events client, a provisioning) stays.
 */

const json = (method: string, body: unknown) => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const FLEET: StartFleetOptions = { size: 20, seed: 5, auth: false, functionsDir: DIST_FUNCTIONS, provision: false, changeDelayMs: 1000 };
const START = Date.UTC(2026, 10, 1, 8);
const SSID = '/api/v1/chutes/hotspot/networks/guest/ssid';

describe('a fleet that keeps two devices built', () => {
  let few: RunningFleet;
  let all: RunningFleet;
  beforeAll(async () => {
    [few, all] = await Promise.all([startFleet({ ...FLEET, mostBuilt: 2 }), startFleet(FLEET)]);
  });
  afterAll(() => Promise.all([few?.stop(), all?.stop()]));

  it('answers as before from a written device that left and is addressed again: its writes, a change under way, its fault rules, its stations', async () => {
    const rules = [
      { match: { path: '/api/v1/chutes' }, count: 3, effect: { status: 503 }, devices: { ids: ['router-0'] } },
      { match: { path: '/api/v1/info/features' }, probability: 0.5, effect: { status: 500 }, devices: { ids: ['router-0', 'router-7'] } },
    ];
    const reads = [
      '/api/v1/chutes',
      '/api/v1/chutes',
      SSID,
      '/api/v1/chutes/hotspot/networks/guest/stations',
      '/api/v1/info/features',
      '/api/v1/info/features',
    ];
    const seen = [];
    for (const fleet of [few, all]) {
      await fleet.setClock({ now: START, elapsedMs: 0, speed: 0 });
      for (const rule of rules) expect((await fetch(`${fleet.url}/_chutebox/faults`, json('POST', rule))).status).toBe(201);
      expect((await fetch(`${fleet.deviceUrl(0)}${SSID}`, json('PUT', { ssid: 'left-and-back' }))).status).toBe(200);
      await fleet.setClock({ advanceMs: 600_000 });
      const restart = await fetch(`${fleet.deviceUrl(0)}/api/v1/chutes/hello-world/restart`, { method: 'POST' });
      const { change_id: change } = (await restart.json()) as { change_id: number };
      const before = [...(await answers(fleet, 0, reads)), ...(await answers(fleet, 7, reads.slice(3)))];
      if (fleet === few) await addressOthers(fleet, 1, 7);
      if (fleet === few) await addressOthers(fleet, 8, 12);
      await fleet.setClock({ advanceMs: 1500 });
      const after = [...(await answers(fleet, 0, [...reads, `/api/v1/changes/${change}`, '/_chutebox/clock'])), ...(await answers(fleet, 7, reads.slice(3)))];
      await fleet.setClock({ advanceMs: 5000 });
      seen.push({ before, after, done: await answers(fleet, 0, [`/api/v1/changes/${change}`, '/_chutebox/state']) });
    }
    expect(few.built()).toBeLessThanOrEqual(2);
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0]!.after[0]).toMatch(/^\/api\/v1\/chutes 503/);
    expect(seen[0]!.after[1]).toMatch(/^\/api\/v1\/chutes 200/);
    expect(seen[0]!.after[2]).toContain('left-and-back');
    expect(seen[0]!.done[0]).toContain('"succeeded"');
  });

  it('keeps the system configuration a first read rendered on a device that left and is addressed again', async () => {
    const seen = [];
    for (const fleet of [few, all]) {
      expect((await fetch(`${fleet.deviceUrl(13)}/api/v1/config/pdconf`)).status).toBe(200);
      if (fleet === few) await addressOthers(fleet, 14, 20);
      await fleet.setClock({ advanceMs: 60_000 });
      seen.push(await answers(fleet, 13, ['/api/v1/config/pdconf', '/_chutebox/state']));
    }
    expect(seen[0]).toEqual(seen[1]);
  });

  it('keeps no more devices built than it is told', async () => {
    await addressOthers(few, 0, 20);
    expect(few.built()).toBeLessThanOrEqual(2);
  });

  it('never lets go of a device an events client follows', async () => {
    const stream = eventsOf(await fetch(`${few.deviceUrl(3)}/api/v1/events?kind=change.queued`));
    expect(stream.status).toBe(200);
    await addressOthers(few, 4, 20);
    expect((await fetch(`${few.deviceUrl(3)}/api/v1/chutes/hello-world/restart`, { method: 'POST' })).status).toBe(200);
    const [queued] = await stream.atLeast(1);
    stream.close();
    expect(queued?.data).toMatchObject({ kind: 'change.queued', change: { action: 'restart', chute: 'hello-world' } });
  });

  it('puts a written device that left back as its seed makes it on a reset of the fleet', async () => {
    const fresh = await (await fetch(`${few.deviceUrl(9)}${SSID}`)).text();
    expect((await fetch(`${few.deviceUrl(9)}${SSID}`, json('PUT', { ssid: 'before-reset' }))).status).toBe(200);
    await addressOthers(few, 10, 20);
    expect((await fetch(`${few.url}/_chutebox/state/reset`, { method: 'POST' })).status).toBe(204);
    expect(await (await fetch(`${few.deviceUrl(9)}${SSID}`)).text()).toBe(fresh);
  });
});

describe('a provisioned device of a fleet that keeps one device built', () => {
  it('leaves like any other, and while held still reports when its report falls due', async () => {
    const fleet = await startFleet({ ...FLEET, size: 6, mostBuilt: 1 });
    const provision = `${fleet.deviceUrl(0)}/api/v1/config/provision`;
    const reports = async () => ((await (await fetch(`${fleet.url}/_chutebox/controller`)).json()) as { received: { reports: number } }).received.reports;
    try {
      await fleet.setClock({ speed: 0 });
      const credentials = { routerId: 'router-0', apitoken: 'fleet-token', pdserver: 'https://controller.test', wampRouter: 'wss://controller.test/ws' };
      expect((await fetch(provision, json('POST', credentials))).status).toBe(200);
      await fleet.setClock({ advanceMs: 61_000 });
      await expect.poll(reports).toBe(1);
      await addressOthers(fleet, 1, 6);
      expect(fleet.built()).toBe(1);
      // Held, it has no timer of its own: the fleet builds it when the clock passes its next report.
      await fleet.setClock({ advanceMs: 60_000 });
      await expect.poll(reports, { timeout: 5000 }).toBe(2);
      // Built for its report (router-5 left for it, as only one is kept), then gone again.
      await expect.poll(() => fleet.built()).toBe(0);
      const status = (await (await fetch(provision)).json()) as { telemetry: { delivered: number } };
      expect(status.telemetry.delivered).toBe(2);
    } finally {
      await fleet.stop();
    }
  });
});

describe('a fleet whose devices leave when idle', () => {
  it('keeps built only the devices used within the idle time, and answers a device that left as before', async () => {
    const fleet = await startFleet({ ...FLEET, size: 4, idleMs: 1000, changeDelayMs: 0 });
    try {
      const ssid = `${fleet.deviceUrl(2)}${SSID}`;
      expect((await fetch(ssid, json('PUT', { ssid: 'idle-test' }))).status).toBe(200);
      await expect.poll(async () => ((await (await fetch(ssid)).json()) as { ssid: string }).ssid).toBe('idle-test');
      await addressOthers(fleet, 0, 4);
      expect(fleet.built()).toBe(4);
      await expect.poll(() => fleet.built(), { timeout: 5000 }).toBe(0);
      expect(await (await fetch(ssid)).json()).toMatchObject({ ssid: 'idle-test' });
    } finally {
      await fleet.stop();
    }
  });
});

describe('a fleet restarted with the same seed, keeping one device built', () => {
  it('answers as the first did', async () => {
    const read = async () => {
      const fleet = await startFleet({ ...FLEET, mostBuilt: 1, still: true });
      try {
        await fleet.setClock({ now: START, elapsedMs: 0, speed: 0 });
        const first = await answers(fleet, 2, [SSID, '/api/v1/info/hardware']);
        await addressOthers(fleet, 3, 6);
        return [...first, ...(await answers(fleet, 2, [SSID, '/api/v1/info/hardware']))];
      } finally {
        await fleet.stop();
      }
    };
    const [once, again] = [await read(), await read()];
    expect(again).toEqual(once);
    expect(once.slice(2)).toEqual(once.slice(0, 2));
  });
});

describe('a fleet with credentials that keeps one device built', () => {
  it("takes a device's token and its changed password after it left and is addressed again", async () => {
    const fleet = await startFleet({ ...FLEET, size: 4, mostBuilt: 1, auth: true });
    const login = (index: number, password: string) => fetch(`${fleet.deviceUrl(index)}/api/v1/auth/local`, json('POST', { username: 'paradrop', password }));
    try {
      const { token } = (await (await login(0, '')).json()) as { token: string };
      const bearer = { headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } };
      expect((await fetch(`${fleet.deviceUrl(0)}/api/v1/password/change`, { ...bearer, method: 'POST', body: '{"password":"changed"}' })).status).toBe(200);
      for (let index = 1; index < 4; index++) expect((await login(index, '')).status).toBe(200);
      expect(fleet.built()).toBe(1);
      expect((await fetch(`${fleet.deviceUrl(0)}/api/v1/info/features`, bearer)).status).toBe(200);
      expect((await login(0, '')).status).toBe(401);
      expect((await login(0, 'changed')).status).toBe(200);
      expect((await fetch(`${fleet.deviceUrl(1)}/api/v1/info/features`, bearer)).status).toBe(401);
    } finally {
      await fleet.stop();
    }
  });
});
