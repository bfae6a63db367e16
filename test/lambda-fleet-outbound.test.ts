import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ProvisionStatus } from '../functions/core/device/index.ts';
import { dynamoDeviceStore, type DeviceStore } from '../emulator/fleet/lambda/device-store.ts';
import { FLEET_ITEM } from '../emulator/fleet/lambda/fleet-origin.ts';
import { FLEET_ENV } from '../emulator/fleet/lambda/fleet-table.ts';
import { RESERVE_MS } from '../emulator/fleet/lambda/outbound-shard.ts';
import { fleetMember, memberById, type FleetSpec } from '../emulator/fleet/members.ts';
import { fleetCredentials, PROVISION_SPREAD_MS, provisionDelayMs } from '../emulator/fleet/outbound.ts';
import { useDynalite } from './support/dynalite.ts';
import { useHttpController, type ControllerRequest } from './support/http-controller.ts';
import { httpApiEvent, jsonEvent, lambdaBundle, outboundHandler, type LambdaHandler, type OutboundHandler } from './support/lambda.ts';

/*
 * The outbound handler of a fleet on Lambda (dist/fleet-outbound.mjs), invoked as each shard's
 * schedule invokes it, in this process, against DynamoDB (dynalite) and a controller on a real socket
 * that checks each router's apitoken; what it did is read back through the endpoint functions.
 */

const db = useDynalite();
/** Seed 3 draws provisioning times with a gap of 35 s: six devices due when the tests start, two (2 and 4) not. */
const spec: FleetSpec = { size: 8, seed: 3, scenarios: [{ scenario: 'default', share: 1 }] };
const ids = Array.from({ length: spec.size }, (_, index) => fleetMember(spec, index).id);
const [shard0, shard1] = [
  { shard: 0, shards: 2 },
  { shard: 1, shards: 2 },
];

/** A user's own credentials, which the controller accepts for their router id. */
const USER = { routerId: 'lab-router', apitoken: 'user-secret-7f3a9c' };

/** The apitoken the controller accepts for a router: the user's, or the one a fleet's device draws. */
function apitokenOf(routerId: string): string {
  if (routerId === USER.routerId) return USER.apitoken;
  const member = memberById(spec, routerId);
  return member === null ? 'no router' : fleetCredentials(member, '').apitoken;
}

/** What the controller does while it holds a report, before answering it. */
let whileReporting: (request: ControllerRequest) => Promise<void> = async () => {};
const controller = useHttpController({ apitoken: apitokenOf, holdReport: (request) => whileReporting(request) });

/** A schedule's invocation, with a minute to run. */
const MINUTE = { getRemainingTimeInMillis: () => 55_000 };

const saved: Record<string, string | undefined> = {};
let store: DeviceStore;
let outbound: OutboundHandler;
/** The devices whose provisioning time has come when the tests start. */
let due: string[];

beforeAll(async () => {
  const table = await db().table('fleet');
  setEnv({
    [FLEET_ENV.table]: table,
    [FLEET_ENV.size]: String(spec.size),
    [FLEET_ENV.seed]: String(spec.seed),
    [FLEET_ENV.endpoint]: db().endpoint,
    CHUTEBOX_CONTROLLER: controller().url,
    CHUTEBOX_CHANGE_DELAY: '0',
  });
  store = dynamoDeviceStore({ table, endpoint: db().endpoint });
  // The fleet started in the middle of the widest gap between its devices' provisioning times.
  const delays = ids.map((_, index) => provisionDelayMs(spec.seed, index, PROVISION_SPREAD_MS));
  const sorted = [...delays].sort((a, b) => a - b);
  const gaps = sorted.slice(1).map((delay, k) => ({ from: sorted[k]!, to: delay }));
  const widest = gaps.reduce((best, gap) => (gap.to - gap.from > best.to - best.from ? gap : best));
  expect(widest.to - widest.from).toBeGreaterThan(30_000);
  await store.write(FLEET_ITEM, { started: Date.now() - Math.round((widest.from + widest.to) / 2) }, null);
  due = ids.filter((_, index) => delays[index]! <= widest.from);
  // Devices 0 and 1 were provisioned ten minutes ago: their reports are due.
  for (const id of ids.slice(0, 2)) await provisionedLongAgo(id);
  outbound = await outboundHandler();
});

afterAll(() => setEnv(saved));

function setEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (!Object.hasOwn(saved, name)) saved[name] = process.env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

/** Stores a device as provisioned with its own credentials ten minutes ago, over what it held, as the outbound would have left it then. */
async function provisionedLongAgo(id: string): Promise<void> {
  const tenMinutesAgo = Date.now() - 600_000;
  const { routerId, apitoken, pdserver, wampRouter } = fleetCredentials(memberById(spec, id)!, controller().url);
  const provisioning = { routerId, pdserver, wampRouter, provisionedAt: new Date(tenMinutesAgo).toISOString() };
  const clock = { now: tenMinutesAgo, elapsedMs: 0, speed: 0 };
  const version = (await store.read(id))?.version ?? null;
  expect(await store.write(id, { state: { provisioning }, clock }, version, apitoken)).toBe(true);
}

/** The body of an endpoint function's answer, after checking its status. */
async function bodyOf(bundle: string, event: ReturnType<typeof httpApiEvent>): Promise<unknown> {
  const handler: LambdaHandler = await lambdaBundle(bundle);
  const answer = await handler(event);
  expect(answer.statusCode, answer.body).toBe(200);
  return JSON.parse(answer.body!);
}

const provisionOf = async (id: string) =>
  (await bodyOf('config-provision-get', httpApiEvent('GET', `/devices/${id}/api/v1/config/provision`))) as ProvisionStatus;

/** The controller's requests of a kind from `from` on: the router each names. */
function routersAsked(kind: 'check' | 'report', from = 0): string[] {
  const pattern = kind === 'check' ? /^\/api\/routers\/([^/]+)$/ : /^\/api\/routers\/([^/]+)\/telemetry$/;
  return controller()
    .requests.slice(from)
    .flatMap((request) => pattern.exec(request.path)?.[1] ?? []);
}

const inShard = (shard: number) => (id: string) => Number(id.slice('router-'.length)) % 2 === shard;

describe('the outbound handler of a fleet on Lambda', () => {
  it('provisions each device whose time has come once, from its own shard, with its own credentials, and writes nothing for the others', async () => {
    const first = await outbound(shard0, MINUTE);
    const provisionedFirst = routersAsked('check');
    const second = await outbound(shard1, MINUTE);
    const provisionable = due.filter((id) => !ids.slice(0, 2).includes(id));
    expect(first).toEqual({ ...shard0, devices: 4, provisioned: provisionable.filter(inShard(0)).length, delivered: 1, failed: 0, left: 0, errors: [] });
    expect(second).toEqual({ ...shard1, devices: 4, provisioned: provisionable.filter(inShard(1)).length, delivered: 1, failed: 0, left: 0, errors: [] });
    // Each device checked once, by its own shard's run; the controller accepted each one's own apitoken.
    expect(provisionedFirst.sort()).toEqual(provisionable.filter(inShard(0)).sort());
    expect(routersAsked('check').sort()).toEqual(provisionable.sort());
    for (const id of provisionable) {
      const item = await store.read(id);
      expect(item, id).toMatchObject({ version: 1, apitoken: apitokenOf(id) });
      expect(JSON.stringify(item!.document)).not.toContain(apitokenOf(id));
      expect(await provisionOf(id)).toMatchObject({ provisioned: true, routerId: id, httpConnected: true });
    }
    for (const id of ids.filter((id) => !due.includes(id))) expect(await store.read(id), id).toBeNull();
  });

  it('sends each provisioned device one report an interval, with its own apitoken: a second run within the interval sends none and writes nothing', async () => {
    expect(routersAsked('report').sort()).toEqual(ids.slice(0, 2));
    for (const request of controller().requests.filter((request) => request.path.endsWith('/telemetry'))) {
      expect(request.authorization).toBe(`Bearer ${apitokenOf(request.path.split('/')[3]!)}`);
    }
    const before = controller().requests.length;
    const versions = async () => Promise.all(due.map(async (id) => (await store.read(id))?.version));
    const written = await versions();
    const runs = [await outbound(shard0, MINUTE), await outbound(shard1, MINUTE)];
    expect(runs.map((run) => [run.delivered, run.failed])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(routersAsked('report', before)).toEqual([]);
    // Nothing was due on them: nothing was written.
    expect(await versions()).toEqual(written);
  });

  it("shows the outbound's deliveries in GET /api/v1/config/provision through the endpoint function, never the apitoken", async () => {
    const status = await provisionOf(ids[0]!);
    expect(status).toMatchObject({ provisioned: true, routerId: ids[0], httpConnected: true });
    expect(status.telemetry).toMatchObject({ enabled: true, interval: 60, delivered: 1, failed: 0, queued: 0, lastError: null });
    expect(Date.now() - Date.parse(status.telemetry.lastSuccess!)).toBeLessThan(60_000);
    expect(JSON.stringify(status)).not.toContain(apitokenOf(ids[0]!));
  });

  it('sends the telemetry of a device provisioned through the API with the apitoken its user gave', { timeout: 60_000 }, async () => {
    const id = ids[1]!;
    const credentials = { ...USER, pdserver: controller().url, wampRouter: 'ws://controller.test/ws' };
    await bodyOf('config-provision-post', jsonEvent('POST', `/devices/${id}/api/v1/config/provision`, credentials));
    // Reports every 10 s, the shortest interval, so that one falls due within the test.
    const hostConfig = (await bodyOf('config-hostconfig-get', httpApiEvent('GET', `/devices/${id}/api/v1/config/hostconfig`))) as Record<string, unknown>;
    await bodyOf(
      'config-hostconfig-put',
      jsonEvent('PUT', `/devices/${id}/api/v1/config/hostconfig`, { ...hostConfig, telemetry: { enabled: true, interval: 10 } }),
    );
    const provisioned = await provisionOf(id);
    expect(provisioned).toMatchObject({ routerId: USER.routerId, telemetry: { interval: 10 } });
    await new Promise((resolve) => setTimeout(resolve, Date.parse(provisioned.provisionedAt!) + 10_000 - Date.now()));
    const before = controller().requests.length;
    expect(await outbound(shard1, MINUTE)).toMatchObject({ failed: 0 });
    const reports = controller()
      .requests.slice(before)
      .filter((request) => request.path === `/api/routers/${USER.routerId}/telemetry`);
    expect(reports.map((request) => request.authorization)).toEqual([`Bearer ${USER.apitoken}`]);
    const item = await store.read(id);
    expect(item?.apitoken).toBe(USER.apitoken);
    expect(JSON.stringify(item!.document)).not.toContain(USER.apitoken);
    expect(JSON.stringify(await provisionOf(id))).not.toContain(USER.apitoken);
  });

  it('keeps an SSID PUT through an endpoint function while the outbound delivers a report, and delivers and counts the report once', async () => {
    const id = ids[3]!;
    const ssidPath = `/devices/${id}/api/v1/chutes/hotspot/networks/guest/ssid`;
    await provisionedLongAgo(id);
    const version = (await store.read(id))!.version;
    // The report is answered only once the PUT, made while it is in flight, has landed.
    whileReporting = async (request) => {
      if (request.path === `/api/routers/${id}/telemetry`) await bodyOf('networks-ssid-put', jsonEvent('PUT', ssidPath, { ssid: 'while-reporting' }));
    };
    const before = controller().requests.length;
    try {
      expect(await outbound(shard1, MINUTE)).toMatchObject({ failed: 0 });
    } finally {
      whileReporting = async () => {};
    }
    expect(routersAsked('report', before).filter((router) => router === id)).toEqual([id]);
    expect(await bodyOf('networks-ssid-get', httpApiEvent('GET', ssidPath))).toMatchObject({ ssid: 'while-reporting' });
    expect((await provisionOf(id)).telemetry).toMatchObject({ delivered: 1, failed: 0 });
    expect((await store.read(id))!.version).toBe(version + 2);
  });

  it('counts a report to a controller out of reach as failed, and GET /api/v1/config/provision shows why', async () => {
    const id = ids[5]!;
    await provisionedLongAgo(id);
    const closed = await closedPortUrl();
    setEnv({ CHUTEBOX_CONTROLLER: closed });
    let run: Awaited<ReturnType<OutboundHandler>>;
    try {
      // A new instance, with the controller of its environment then.
      run = await (await outboundHandler('unreachable'))(shard1, MINUTE);
    } finally {
      setEnv({ CHUTEBOX_CONTROLLER: controller().url });
    }
    const unreached = `the controller at ${closed} could not be reached: connect ECONNREFUSED ${new URL(closed).host}`;
    expect(run.errors).toContain(`${id}: ${unreached}`);
    const status = await provisionOf(id);
    expect(status).toMatchObject({ provisioned: true, httpConnected: false });
    expect(status.telemetry).toMatchObject({
      delivered: 0,
      failed: 1,
      lastSuccess: null,
      lastError: { message: unreached },
    });
  });

  it('refuses an event that names no shard, naming the field, and changes nothing', async () => {
    const before = controller().requests.length;
    await expect(outbound({ shard: 2, shards: 2 }, MINUTE)).rejects.toThrow('the outbound event {shard, shards}: shard must be below shards (2), not 2');
    await expect(outbound({ shard: 0 }, MINUTE)).rejects.toThrow(/→ at shards/);
    await expect(outbound({ shard: -1, shards: 2 }, MINUTE)).rejects.toThrow(/must be a whole number from 0\n {2}→ at shard/);
    await expect(outbound({ shard: '1', shards: 2 }, MINUTE)).rejects.toThrow(/→ at shard/);
    expect(controller().requests.length).toBe(before);
  });

  it('starts no device with too little time left, counting them as left for the next minute in the summary it logs', async () => {
    const versions = await Promise.all(ids.map(async (id) => (await store.read(id))?.version ?? null));
    const short = { getRemainingTimeInMillis: () => RESERVE_MS - 1 };
    const logged = vi.spyOn(console, 'log').mockImplementation(() => {});
    const summary = { ...shard0, devices: 4, provisioned: 0, delivered: 0, failed: 0, left: 4, errors: [] };
    try {
      expect(await outbound(shard0, short)).toEqual(summary);
      expect(logged.mock.calls).toEqual([[JSON.stringify({ outbound: summary })]]);
    } finally {
      logged.mockRestore();
    }
    expect(await Promise.all(ids.map(async (id) => (await store.read(id))?.version ?? null))).toEqual(versions);
  });
});

/** The URL of a loopback port nothing listens on. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
