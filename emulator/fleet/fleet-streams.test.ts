import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '../../test/support/event-stream-client.ts';
import { DIST_FUNCTIONS } from '../../test/support/test-bundles.ts';
import { openWebSocket, opened } from '../../test/support/websocket-client.ts';
import { startFleet, type RunningFleet } from './start-fleet.ts';

/*
 * The websockets and the events stream of a fleet's device, below `/devices/<id>/`: each is the
 * device's own, as on one emulated router.
 */

const hostapd = (chute: string, network: string) => `/api/v1/chutes/${chute}/networks/${network}/hostapd_control/ws`;
const ssidOf = (text: string) => /^ssid(?:\[0\])?=(.*)$/m.exec(text)?.[1];

describe("a fleet device's streams", () => {
  let fleet: RunningFleet;
  beforeAll(async () => {
    fleet = await startFleet({ size: 5, seed: 3, auth: false, functionsDir: DIST_FUNCTIONS, provision: false, still: true, changeDelayMs: 0 });
  });
  afterAll(() => fleet.stop());

  it("answers a device's hostapd control websocket, and SET ssid changes that device alone", async () => {
    const ws = opened(await openWebSocket(`${fleet.deviceUrl(2)}${hostapd('hotspot', 'guest')}`));
    ws.send('SET ssid fleet two');
    expect(await ws.next()).toBe('OK\n');
    ws.send('STATUS');
    expect(ssidOf(await ws.next())).toBe('fleet two');
    ws.close();
    const ssid = async (index: number) =>
      ((await (await fetch(`${fleet.deviceUrl(index)}/api/v1/chutes/hotspot/networks/guest/ssid`)).json()) as { ssid: string }).ssid;
    expect(await ssid(2)).toBe('fleet two');
    expect(await ssid(3)).not.toBe('fleet two');
  });

  it("streams a device's own events, and another device's change is not among them", async () => {
    const stream = eventsOf(await fetch(`${fleet.deviceUrl(1)}/api/v1/events?kind=change.queued`));
    expect(stream.status).toBe(200);
    const act = (index: number, action: string) => fetch(`${fleet.deviceUrl(index)}/api/v1/chutes/hello-world/${action}`, { method: 'POST' });
    // Published first: on device 1's stream it would come before device 1's own change.
    expect((await act(4, 'stop')).status).toBe(200);
    expect((await act(1, 'restart')).status).toBe(200);
    const [first] = await stream.atLeast(1);
    stream.close();
    expect(first?.data).toMatchObject({ kind: 'change.queued', change: { action: 'restart', chute: 'hello-world' } });
  });

  it("follows a device's change on ParaDrop's change stream websocket", async () => {
    const { change_id: id } = (await (await fetch(`${fleet.deviceUrl(0)}/api/v1/chutes/hello-world/restart`, { method: 'POST' })).json()) as {
      change_id: number;
    };
    const ws = opened(await openWebSocket(`${fleet.deviceUrl(0)}/ws/changes/${id}/stream`));
    const first = JSON.parse(await ws.next()) as { message: string };
    expect(first.message).toEqual(expect.any(String));
    ws.close();
    await ws.closed;
  });
});
