import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../emulator/start.ts';
import { openEvents, type EventStreamClient } from './support/event-stream-client.ts';
import { DIST_FUNCTIONS } from './support/test-bundles.ts';

/*
 * The living network as a controller's test sees it over HTTP: the default scenario on a stopped
 * clock, moved on ten minutes with PATCH /_chutebox/clock (issue 32's "done when").
 */

const WIFI = '/api/v1/chutes/hello-world/networks/wifi';

let router: RunningEmulator;
beforeAll(async () => {
  router = await startEmulator({ auth: false, functionsDir: DIST_FUNCTIONS, seed: 1, clock: { now: Date.UTC(2026, 10, 28, 12), speed: 0 } });
});
afterAll(() => router.stop());

/** The body of a GET, as JSON. */
const get = async <T>(path: string): Promise<T> => (await (await fetch(`${router.url}${path}`)).json()) as T;

type Station = { mac_addr: string; rx_bytes: string; connected_time: string };

describe('the default scenario, its clock advanced ten minutes', () => {
  it('has other stations, counters and leases, and streams the events of what happened meanwhile', async () => {
    const stream = (await openEvents(router.url, '?kind=station.connected,station.disconnected,lease.added,lease.expired,lease.renewed')) as EventStreamClient;
    const before = { stations: await get<Station[]>(`${WIFI}/stations`), leases: await get<unknown[]>(`${WIFI}/leases`) };
    const advanced = await fetch(`${router.url}/_chutebox/clock`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advanceMs: 10 * 60_000 }),
    });
    expect(advanced.status).toBe(200);
    const after = { stations: await get<Station[]>(`${WIFI}/stations`), leases: await get<unknown[]>(`${WIFI}/leases`) };

    expect(after.stations.map((s) => s.mac_addr)).not.toEqual(before.stations.map((s) => s.mac_addr));
    expect(after.leases).not.toEqual(before.leases);
    // A station there both times has moved on: more bytes, a longer connection.
    const stayed = after.stations.find((s) => before.stations.some((b) => b.mac_addr === s.mac_addr));
    if (stayed !== undefined) {
      const was = before.stations.find((b) => b.mac_addr === stayed.mac_addr)!;
      expect(Number(stayed.rx_bytes)).toBeGreaterThan(Number(was.rx_bytes));
      expect(Number.parseInt(stayed.connected_time, 10)).toBeGreaterThan(Number.parseInt(was.connected_time, 10));
    }

    // Every station that joined or left has its event, in time order, each within the ten minutes.
    const joined = after.stations.filter((s) => !before.stations.some((b) => b.mac_addr === s.mac_addr)).map((s) => s.mac_addr);
    for (const mac of joined) await stream.next((event) => event.event === 'station.connected' && event.data.mac === mac);
    const left = before.stations.filter((b) => !after.stations.some((s) => s.mac_addr === b.mac_addr)).map((s) => s.mac_addr);
    for (const mac of left) await stream.next((event) => event.event === 'station.disconnected' && event.data.mac === mac);
    const times = stream.events.map((event) => Date.parse(String(event.data.time)));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(Math.max(...times) - Date.UTC(2026, 10, 28, 12)).toBeLessThanOrEqual(10 * 60_000);
    stream.close();
  });
});
