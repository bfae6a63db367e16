import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../functions/core/device/index.ts';
import { dynamoDeviceStore, type DeviceStore } from '../emulator/fleet/lambda/device-store.ts';
import { FLEET_ENV } from '../emulator/fleet/lambda/fleet-table.ts';
import { fleetMember, type FleetSpec } from '../emulator/fleet/members.ts';
import { useDynalite } from './support/dynalite.ts';
import { httpApiEvent, jsonEvent, lambdaBundle, type LambdaHandler } from './support/lambda.ts';
import { numberedKey } from './support/ssh-keys.ts';

/*
 * A fleet served by the function bundles as Lambda runs them, in this process: each request's device
 * found from its path or host, built from the fleet's seed and its state read from and written to
 * DynamoDB (dynalite). test/lambda-fleet-instances.test.ts runs two instances in processes of their own.
 */

const db = useDynalite();
const spec: FleetSpec = {
  size: 10,
  seed: 5,
  scenarios: [
    { scenario: 'default', share: 0.7 },
    { scenario: 'gl-ar150', share: 0.3 },
  ],
};
/** The fleet's devices that run the default scenario, whose hotspot chute has a guest access point. */
const defaults = Array.from({ length: spec.size }, (_, index) => fleetMember(spec, index)).filter((member) => member.scenario === 'default');

/** How long each step of a change takes on the fleet's devices: longer than a read takes on a loaded machine, so that the test sees each state. */
const DELAY_MS = 1500;

const saved: Record<string, string | undefined> = {};
let store: DeviceStore;

beforeAll(async () => {
  const table = await db().table('fleet');
  const env = {
    [FLEET_ENV.table]: table,
    [FLEET_ENV.size]: String(spec.size),
    [FLEET_ENV.seed]: String(spec.seed),
    [FLEET_ENV.scenarios]: 'default=0.7,gl-ar150=0.3',
    [FLEET_ENV.domain]: 'fleet.test',
    [FLEET_ENV.endpoint]: db().endpoint,
    CHUTEBOX_CHANGE_DELAY: String(DELAY_MS),
  };
  for (const [name, value] of Object.entries(env)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  store = dynamoDeviceStore({ table, endpoint: db().endpoint });
});

afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** The body of an answer, parsed, after checking its status. */
function bodyOf(answer: Awaited<ReturnType<LambdaHandler>>, status = 200): unknown {
  expect(answer.statusCode, answer.body).toBe(status);
  return JSON.parse(answer.body!);
}

const ssidPath = (id: string) => `/devices/${id}/api/v1/chutes/hotspot/networks/guest/ssid`;

describe('a fleet on Lambda', () => {
  it('keeps a PUT of an SSID through one function for another to read, on that device alone', async () => {
    const [put, get] = await Promise.all([lambdaBundle('networks-ssid-put'), lambdaBundle('networks-ssid-get')]);
    const [one, other] = defaults;
    const before = bodyOf(await get(httpApiEvent('GET', ssidPath(other!.id)))) as { ssid: string };
    expect(bodyOf(await put(jsonEvent('PUT', ssidPath(one!.id), { ssid: 'fleet-lab' })))).toEqual({ message: 'OK' });
    expect(bodyOf(await get(httpApiEvent('GET', ssidPath(one!.id))))).toMatchObject({ ssid: 'fleet-lab' });
    expect(bodyOf(await get(httpApiEvent('GET', ssidPath(other!.id))))).toEqual(before);
    expect((await store.read(one!.id))?.version).toBe(1);
  });

  it('answers a device by its host name within the fleet domain', async () => {
    const hardware = await lambdaBundle('info-hardware-get');
    const event = httpApiEvent('GET', '/api/v1/info/hardware');
    const byHost = await hardware({ ...event, headers: { ...event.headers, host: `${defaults[0]!.id}.fleet.test` } });
    const byPath = await hardware(httpApiEvent('GET', `/devices/${defaults[0]!.id}/api/v1/info/hardware`));
    expect(bodyOf(byHost)).toEqual(bodyOf(byPath));
  });

  it('keeps nothing in the table for a device that was only read', async () => {
    const chutes = await lambdaBundle('chutes-chutes-get');
    const id = defaults.at(-1)!.id;
    expect(bodyOf(await chutes(httpApiEvent('GET', `/devices/${id}/api/v1/chutes`)))).toEqual(expect.any(Array));
    expect(await store.read(id)).toBeNull();
  });

  it('answers a 404 problem for a device that is not in the fleet, and for a path that names no device', async () => {
    const hardware = await lambdaBundle('info-hardware-get');
    expect(bodyOf(await hardware(httpApiEvent('GET', '/devices/router-10/api/v1/info/hardware')), 404)).toMatchObject({
      status: 404,
      detail: 'no device router-10 in this fleet of 10 (router-0 to router-9)',
    });
    expect(bodyOf(await hardware(httpApiEvent('GET', '/api/v1/info/hardware')), 404)).toMatchObject({
      detail: 'a device of this fleet answers at /devices/<id>/api/v1/…, its ids router-0 to router-9',
    });
    expect(bodyOf(await hardware(httpApiEvent('GET', '/devices/router-1/api/v1/info/hardwares')), 404)).toMatchObject({
      detail: 'no resource at /devices/router-1/api/v1/info/hardwares',
    });
    expect(await store.read('router-10')).toBeNull();
  });

  it('loses none of many writes made to one device at once', async () => {
    const [post, list] = await Promise.all([lambdaBundle('config-ssh-keys-post'), lambdaBundle('config-ssh-keys-get')]);
    const id = defaults[1]!.id;
    const keys = Array.from({ length: 20 }, (_, n) => numberedKey(n, 'fleet'));
    const recorded = bodyOf(await list(httpApiEvent('GET', `/devices/${id}/api/v1/config/sshKeys/paradrop`))) as string[];
    // As a client would: a 503 (the device changed during each of a request's tries) is sent again after its Retry-After.
    const send = async (key: string, tries = 5): Promise<{ statusCode?: number }> => {
      const answer = await post(jsonEvent('POST', `/devices/${id}/api/v1/config/sshKeys/paradrop`, { key }));
      if (answer.statusCode !== 503 || tries === 1) return answer;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return send(key, tries - 1);
    };
    const answers = await Promise.all(keys.map((key) => send(key)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(keys.map(() => 200));
    const listed = bodyOf(await list(httpApiEvent('GET', `/devices/${id}/api/v1/config/sshKeys/paradrop`))) as string[];
    expect([...listed].sort()).toEqual([...recorded, ...keys].sort());
    expect((await store.read(id))?.version).toBe(keys.length);
  });

  it('shows a change queued by one invocation running, then succeeded, to later ones as its steps come due, nothing running in between', async () => {
    const [stop, change] = await Promise.all([lambdaBundle('chutes-stop-post'), lambdaBundle('changes-change-get')]);
    const id = defaults[2]!.id;
    // The process's timers: the handler leaves none of its own (one of the test's clients may end one of theirs meanwhile).
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const { change_id } = bodyOf(await stop(httpApiEvent('POST', `/devices/${id}/api/v1/chutes/hotspot/stop`))) as { change_id: number };
    expect(timers()).toBeLessThanOrEqual(before);
    const read = async () => bodyOf(await change(httpApiEvent('GET', `/devices/${id}/api/v1/changes/${change_id}`))) as ChangeRecord;
    const states = new Set<string>();
    let record = await read();
    const created = Date.parse(record.created);
    while (record.state !== 'succeeded' && record.state !== 'failed') {
      states.add(record.state);
      await new Promise((resolve) => setTimeout(resolve, DELAY_MS / 4));
      record = await read();
    }
    expect([...states, record.state]).toEqual(['queued', 'running', 'succeeded']);
    // Each step at the time the change delay puts it, from the time the change was queued.
    const at = (text: string) => Date.parse(record.messages.find((message) => message.text === text)!.time) - created;
    expect([at('running'), at('succeeded')]).toEqual([DELAY_MS, 2 * DELAY_MS]);
    // Only the POST wrote: the reads derived each step from the times stored.
    expect((await store.read(id))?.version).toBe(1);
    expect(timers()).toBeLessThanOrEqual(before);
  });
});
