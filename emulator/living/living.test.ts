import { cp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chuteNetworks } from '../../functions/chutes/lookup.ts';
import type { DeviceEvent, NetworkTarget, Settings } from '../../functions/core/device/index.ts';
import * as telemetry from '../../functions/info/telemetry.get.ts';
import type { Telemetry } from '../../functions/info/schemas.ts';
import { deviceMetrics } from '../../functions/metrics/device-metrics.ts';
import * as clients from '../../functions/networks/clients.get.ts';
import * as hostapdStatus from '../../functions/networks/hostapd-status.get.ts';
import * as leases from '../../functions/networks/leases.get.ts';
import * as station from '../../functions/networks/station.get.ts';
import * as stationDelete from '../../functions/networks/station.delete.ts';
import * as stations from '../../functions/networks/stations.get.ts';
import { parseAllSta } from '../../functions/parsers/hostapd-sta.ts';
import { parseNetDev } from '../../functions/parsers/netdev.ts';
import { callFunction, okBody } from '../../test/support/call-function.ts';
import { settledChange } from '../../test/support/emulated-changes.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { compileScenario } from '../scenario/compiled.ts';
import { scenarioFromDocument, type Scenario } from '../scenario/core.ts';
import { loadScenario } from '../scenario/device.ts';

/*
 * The living network of the default scenario (fixtures/scenarios/default/living.yaml), on a clock the
 * tests move: what the device answers at a time, and the events it tells on the way.
 */

const DEFAULT = fileURLToPath(new URL('../../fixtures/scenarios/default/', import.meta.url));
const T0 = Date.UTC(2026, 0, 1, 8, 0, 0);
const MINUTE = 60_000;
const WIFI = { chute: 'hello-world', network: 'wifi' };
const GUEST = { chute: 'hotspot', network: 'guest' };
/** The phone of the default scenario's timeline: joins hello-world/wifi at 120 s, roams to hotspot/guest at 300 s, leaves at 480 s. */
const PHONE = '02:5a:11:00:00:01';

const temp = useTempDir('chutebox-living-');

/** The default scenario on a clock at `T0 + elapsed`, which `at(ms)` moves, with every event it tells. */
async function livingDefault(options: { seed?: number; dir?: string; still?: boolean; changeDelayMs?: number; settings?: () => Settings } = {}) {
  const scenario = await loadScenario(options.dir ?? DEFAULT, undefined, { clock: { now: T0, speed: 0 }, ...options });
  const events: DeviceEvent[] = [];
  scenario.device.followEvents((event) => events.push(event));
  return { scenario, device: scenario.device, events, at: (elapsed: number) => moveTo(scenario, elapsed) };
}

/** Puts a scenario's stopped clock at `T0 + elapsed`, `elapsed` since its replay started, running no timer. */
function moveTo(scenario: Scenario, elapsed: number): void {
  scenario.clock.restore({ now: T0 + elapsed, elapsedMs: elapsed, speed: 0 });
}

/** The host of a chute network, as the handlers find it. */
async function host(scenario: Scenario, which: { chute: string; network: string }) {
  const chute = (await scenario.device.chute(which.chute))!;
  const target: NetworkTarget = chuteNetworks(chute).find((network) => network.name === which.network)!.target;
  return scenario.device.network(target);
}

/** Every raw text the living network writes, for one device at its time now. */
async function rawTexts(scenario: Scenario): Promise<string[]> {
  const texts: string[] = [];
  for (const which of [WIFI, GUEST]) {
    const network = await host(scenario, which);
    texts.push(await network.stationDump(), (await network.leases()) ?? '', await network.hostapdStations(), await network.hostapd(['STATUS']));
  }
  texts.push((await scenario.device.readFile('/proc/net/dev')) ?? '');
  for (const container of (await scenario.device.containers()) ?? []) texts.push(JSON.stringify(await scenario.device.containerStats(String(container.Id))));
  return texts;
}

const stationMacs = async (scenario: Scenario, which = WIFI) => (await okBody(stations, scenario.device, which)).map((s) => s.mac_addr);

describe('the living network of the default scenario', () => {
  it('answers the same bytes for the same seed and time, from the folder or its compiled document; another seed other stations', async () => {
    const folder = await livingDefault({ seed: 42 });
    const compiled = scenarioFromDocument(await compileScenario(DEFAULT, 'default'), { clock: { now: T0, speed: 0 }, seed: 42 });
    const other = await livingDefault({ seed: 43 });
    for (const elapsed of [0, 2 * MINUTE, 3 * 3_600_000 + 1234]) {
      folder.at(elapsed);
      other.at(elapsed);
      moveTo(compiled, elapsed);
      expect(await rawTexts(compiled)).toEqual(await rawTexts(folder.scenario));
    }
    expect(await stationMacs(other.scenario)).not.toEqual(await stationMacs(folder.scenario));
  });

  it('ten minutes on, has other stations, counters and leases, and told each change as it happened, in order', async () => {
    const { scenario, events, at } = await livingDefault();
    const before = { wifi: await okBody(stations, scenario.device, WIFI), leases: await okBody(leases, scenario.device, WIFI) };
    const hostapd: string[] = [];
    await (await host(scenario, WIFI)).hostapdEvents(
      (text) => hostapd.push(text),
      () => {},
    );
    at(10 * MINUTE);
    const after = { wifi: await okBody(stations, scenario.device, WIFI), leases: await okBody(leases, scenario.device, WIFI) };

    const macs = (list: { mac_addr?: string }[]) => list.map((entry) => entry.mac_addr!);
    const gone = macs(before.wifi).filter((mac) => !macs(after.wifi).includes(mac));
    const stayed = after.wifi.filter((entry) => macs(before.wifi).includes(entry.mac_addr));
    expect(gone.length).toBeGreaterThan(0);
    expect(stayed.length).toBeGreaterThan(0);
    for (const entry of stayed) {
      const was = before.wifi.find((old) => old.mac_addr === entry.mac_addr)!;
      expect(Number(entry.rx_bytes)).toBeGreaterThan(Number(was.rx_bytes));
      expect(Number(entry.tx_packets)).toBeGreaterThan(Number(was.tx_packets));
      expect(Number.parseInt(String(entry.connected_time), 10)).toBe(Number.parseInt(String(was.connected_time), 10) + 600);
    }
    expect(macs(after.leases)).toContain(PHONE);
    expect(macs(before.leases)).not.toContain(PHONE);

    // Each event at its own time, in order, within the ten minutes; a station left as often as the answers say.
    const times = events.map((event) => Date.parse(event.time));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[0]).toBeGreaterThan(T0);
    expect(times.at(-1)).toBeLessThanOrEqual(T0 + 10 * MINUTE);
    const told = (kind: string, where = WIFI) =>
      events.filter((event) => event.kind === kind && 'network' in event && event.network === where.network).map((event) => ('mac' in event ? event.mac : ''));
    expect(
      told('station.disconnected')
        .filter((mac) => mac !== PHONE)
        .sort(),
    ).toEqual(gone.sort());
    expect(told('lease.added')).toEqual([PHONE]);
    expect(
      events.filter((event) => event.kind.startsWith('station.') && 'mac' in event && event.mac === PHONE).map((event) => [event.kind, event.time]),
    ).toEqual([
      ['station.connected', '2026-01-01T08:02:00.000Z'],
      ['station.disconnected', '2026-01-01T08:05:00.000Z'],
      ['station.connected', '2026-01-01T08:05:00.000Z'],
      ['station.roamed', '2026-01-01T08:05:00.000Z'],
      ['station.disconnected', '2026-01-01T08:08:00.000Z'],
    ]);
    // hostapd's control websocket heard the same of its own access point.
    expect(hostapd).toEqual(
      events
        .filter((event) => (event.kind === 'station.connected' || event.kind === 'station.disconnected') && event.network === 'wifi')
        .map((event) => `${event.kind === 'station.connected' ? 'AP-STA-CONNECTED' : 'AP-STA-DISCONNECTED'} ${'mac' in event ? event.mac : ''}`),
    );
    // The ids follow one another: nothing told twice.
    expect(events.map((event) => event.id)).toEqual(events.map((_, i) => events[0]!.id + i));
  });

  it('renews the leases of the stations that stay and lets the others run out, telling both', async () => {
    const { scenario, events, at } = await livingDefault();
    at(90 * MINUTE);
    await scenario.catchUp();
    const guest = events.filter((event) => event.kind.startsWith('lease.') && 'network' in event && event.network === 'guest');
    expect(guest.map((event) => event.kind)).toContain('lease.renewed');
    expect(guest.map((event) => event.kind)).toContain('lease.expired');
    for (const event of guest.filter((e) => e.kind === 'lease.renewed')) {
      if (event.kind === 'lease.renewed') expect(Date.parse(event.expires!) - Date.parse(event.time)).toBeCloseTo(3_600_000, -4);
    }
    const file = (await okBody(leases, scenario.device, GUEST)).map((lease) => lease.mac_addr);
    for (const event of guest.filter((e) => e.kind === 'lease.expired')) expect(file).not.toContain('mac' in event ? event.mac : '');
  });

  it('writes texts that the parsers read, so every endpoint, telemetry and the metrics move with the stations', async () => {
    const { scenario, at } = await livingDefault();
    const device = scenario.device;
    const metrics = async () =>
      (await deviceMetrics(device))
        .filter((sample) => sample.family.name.startsWith('wifi_station'))
        .map((s) => `${s.family.name} ${JSON.stringify(s.labels)} ${s.value}`);
    const firstTelemetry = await okBody<Telemetry>(telemetry, device);
    const firstMetrics = await metrics();
    at(2 * MINUTE + 30_000);
    const listed = await okBody(stations, device, WIFI);
    expect(listed.map((s) => s.mac_addr)).toContain(PHONE);
    const phone = await okBody(station, device, { ...WIFI, mac: PHONE.toUpperCase() });
    expect(phone).toMatchObject({ mac_addr: PHONE, signal: expect.stringMatching(/^-\d+ \[.*\] dBm$/), connected_time: '30 seconds' });
    expect(await okBody(hostapdStatus, device, WIFI)).toMatchObject({ 'num_sta[1]': String(listed.length), 'num_sta[0]': '2' });
    expect((await okBody(clients, device, WIFI)).find((client) => client.mac_addr === PHONE)).toMatchObject({
      ip_addr: expect.stringMatching(/^192\.168\.128\.1[0-4]\d$/),
      hostname: 'Pixel-7a',
    });
    expect(parseAllSta(await (await host(scenario, WIFI)).hostapdStations()).map((s) => s.mac_addr)).toEqual(listed.map((s) => s.mac_addr));

    const later = await okBody<Telemetry>(telemetry, device);
    const counters = (report: Telemetry, name: string) => report.network.find((entry) => entry.name === name)!;
    expect(counters(later, 'phy1-ap1').bytes_recv).toBeGreaterThan(counters(firstTelemetry, 'phy1-ap1').bytes_recv);
    expect(counters(later, 'eth0').bytes_recv).toBeGreaterThan(counters(firstTelemetry, 'eth0').bytes_recv);
    expect(counters(later, 'lo')).toEqual(counters(firstTelemetry, 'lo'));
    for (const chute of later.chutes)
      expect(chute.network.rx_bytes).toBeGreaterThan(firstTelemetry.chutes.find((c) => c.name === chute.name)!.network.rx_bytes);
    expect(parseNetDev((await device.readFile('/proc/net/dev'))!)).toHaveLength(13);
    expect(await metrics()).not.toEqual(firstMetrics);
    expect((await metrics()).some((line) => line.includes(PHONE))).toBe(true);
  });

  it("has a timeline's station join at its time and not before", async () => {
    const { scenario, events, at } = await livingDefault();
    at(2 * MINUTE - 1);
    expect(await stationMacs(scenario)).not.toContain(PHONE);
    at(2 * MINUTE);
    expect(await stationMacs(scenario)).toContain(PHONE);
    expect(events.find((event) => event.kind === 'station.connected')).toMatchObject({ mac: PHONE, time: '2026-01-01T08:02:00.000Z' });
  });

  it('keeps a station disconnected through the API gone for the rest of its stay, told once, also in a restored state', async () => {
    const { scenario, events, at } = await livingDefault();
    at(3 * MINUTE);
    expect((await callFunction(stationDelete, scenario.device, { ...WIFI, mac: PHONE })).status).toBe(200);
    at(4 * MINUTE);
    expect(await stationMacs(scenario)).not.toContain(PHONE);
    at(6 * MINUTE);
    // Its roam to the guest network at 5 minutes was part of the same stay.
    expect(await stationMacs(scenario, GUEST)).not.toContain(PHONE);
    await scenario.catchUp();
    expect(events.filter((event) => event.kind.startsWith('station.') && 'mac' in event && event.mac === PHONE).map((event) => event.kind)).toEqual([
      'station.connected',
      'station.disconnected',
    ]);
    const state = await scenario.snapshot();
    expect(state.networks).toEqual([{ chute: 'hello-world', network: 'wifi', ssid: null, disconnected: [PHONE], disconnectedAt: { [PHONE]: 3 * MINUTE } }]);
    const restored = await livingDefault();
    await restored.scenario.restore(state);
    expect(await stationMacs(restored.scenario)).not.toContain(PHONE);
    restored.at(6 * MINUTE);
    expect(await stationMacs(restored.scenario, GUEST)).not.toContain(PHONE);
  });

  it('moves once an emulated second: the reads of one second answer the same texts, and a disconnection shows at once', async () => {
    const { scenario, at } = await livingDefault();
    at(3 * MINUTE + 100);
    const early = await rawTexts(scenario);
    at(3 * MINUTE + 900);
    expect(await rawTexts(scenario)).toEqual(early);
    at(3 * MINUTE + 1000);
    expect(await rawTexts(scenario)).not.toEqual(early);
    expect(await stationMacs(scenario)).toContain(PHONE);
    expect((await callFunction(stationDelete, scenario.device, { ...WIFI, mac: PHONE })).status).toBe(200);
    expect(await stationMacs(scenario)).not.toContain(PHONE);
  });

  it('tells what happened over a jump of the clock on catchUp() alone, each event at its time', async () => {
    const { scenario, events, at } = await livingDefault();
    at(9 * MINUTE);
    expect(events).toEqual([]);
    await scenario.catchUp();
    expect(events.map((event) => event.time)).toContain('2026-01-01T08:08:00.000Z');
    const told = events.length;
    await scenario.catchUp();
    expect(events).toHaveLength(told);
  });

  it('tells the same events, at the same times, whether read every few seconds or caught up once', async () => {
    const often = await livingDefault();
    for (let elapsed = 0; elapsed <= 40 * MINUTE; elapsed += 7_000) {
      often.at(elapsed);
      await stationMacs(often.scenario);
    }
    often.at(40 * MINUTE);
    await often.scenario.catchUp();
    const once = await livingDefault();
    once.at(40 * MINUTE);
    await once.scenario.catchUp();
    const told = (events: DeviceEvent[]) => events.map(({ id: _id, ...event }) => event);
    expect(told(often.events).length).toBeGreaterThan(5);
    expect(told(often.events)).toEqual(told(once.events));
  });

  it('lives on in the other networks when a chute network is rebuilt where its hostapd cannot start', async () => {
    // A lab link stands in for the radios: the recorded reservation names none, and the rebuilt access point gets
    // none, so it has no hostapd (as serve, with a radio gone).
    const { scenario, device, events, at } = await livingDefault({ changeDelayMs: 0, settings: () => ({ lab_link: 'lab0' }) });
    const stored = (await device.chute('hello-world'))!;
    const wifi = { ...(stored.config.net as Record<string, Record<string, unknown>>).wifi, ssid: 'renamed' };
    const change = await device.submitChange({ action: 'update-config', chute: 'hello-world', config: { ...stored.config, net: { wifi } } });
    expect((await settledChange(device, change.id)).state).toBe('succeeded');
    expect((await callFunction(stations, device, WIFI)).status).toBe(503);
    const before = events.length;
    at(60 * MINUTE);
    await scenario.catchUp();
    const where = events
      .slice(before)
      .flatMap((event) => (event.kind === 'station.connected' || event.kind === 'station.disconnected' ? [`${event.chute}/${event.network}`] : []));
    expect(where).toContain('hotspot/guest');
    expect(where).not.toContain('hello-world/wifi');
  });

  it('stands still with still: true, answering the recordings as recorded', async () => {
    const { scenario, events, at } = await livingDefault({ still: true });
    at(10 * MINUTE);
    expect(await (await host(scenario, WIFI)).stationDump()).toBe(
      await import('node:fs/promises').then((fs) => fs.readFile(path.join(DEFAULT, 'chutes/hello-world/networks/wifi/iw-station-dump.txt'), 'utf8')),
    );
    await scenario.catchUp();
    expect(events).toEqual([]);
  });

  it('fails at start on a bad living.yaml, naming the file and the field', async () => {
    const dir = path.join(await temp.folder('bad'), 'default');
    await cp(DEFAULT, dir, { recursive: true, verbatimSymlinks: true });
    await writeFile(path.join(dir, 'living.yaml'), 'timeline:\n  - { at: 30, station: "02:00:00:00:00:09", leave: true }\n');
    await expect(loadScenario(dir)).rejects.toThrow(
      `${path.join(dir, 'living.yaml')} is not a valid living network:\n✖ station 02:00:00:00:00:09 has not joined by 30 s: it must join first\n  → at timeline[0].leave`,
    );
  });
});
