import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../../../functions/core/problem.ts';
import { loadFleetScenarios } from '../member-device.ts';
import { fleetMember, type FleetSpec } from '../members.ts';
import { useHttpController } from '../../../test/support/http-controller.ts';
import type { DeviceStore, Stored } from './device-store.ts';
import { MOST_ATTEMPTS, serveMember, type LambdaFleet } from './served-member.ts';

/** The account of the default scenario whose keys the request adds to. */
const PARADROP = { name: 'paradrop', uid: 1000, gid: 1000, home: '/home/paradrop' };

const spec: FleetSpec = { size: 3, seed: 4, scenarios: [{ scenario: 'default', share: 1 }] };
const controller = useHttpController({ apitoken: 'fleet-token' });

/** A store that holds nothing and refuses every write, as a table whose item other requests keep writing. */
const alwaysChanged: DeviceStore = {
  read: async () => null,
  readMany: async (keys) => keys.map(() => null),
  write: async () => false,
};

describe('a request on a device of a fleet on Lambda', () => {
  it(`answers 503 with Retry-After when the device was changed meanwhile on each of its ${MOST_ATTEMPTS} tries`, async () => {
    const fleet: LambdaFleet = { scenarios: await loadFleetScenarios(spec), store: alwaysChanged, origin: Date.now(), device: {} };
    let runs = 0;
    const refused = await serveMember(fleet, fleetMember(spec, 1), 'request-1', async (device) => {
      runs += 1;
      await device.accounts.updateAuthorizedKeys(PARADROP, (keys) => `${keys ?? ''}ssh-ed25519 AAAA${runs}\n`);
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HttpProblem);
    expect(refused).toMatchObject({ status: 503, headers: { 'retry-after': '1' } });
    expect((refused as Error).message).toBe(`router-1 was changed by other requests during each of ${MOST_ATTEMPTS} tries of this one: try again`);
    expect(runs).toBe(MOST_ATTEMPTS);
  });

  it("keeps a sink's volume set by one invocation for the next, and no other device gets it", async () => {
    const fleet: LambdaFleet = { scenarios: await loadFleetScenarios(spec), store: memoryStore(), origin: Date.now(), device: {} };
    const sinks = (index: number) => serveMember(fleet, fleetMember(spec, index), `read-${index}`, (device) => device.audio.pactl('sinks'));
    const before = await sinks(0);
    await serveMember(fleet, fleetMember(spec, 0), 'set-volume', (device) => device.audio.setVolume('sink', 'null', [16384]));
    expect(await sinks(0)).toContain('"value":16384');
    expect(await sinks(1)).toBe(before);
  });

  it("sends no telemetry while it carries a provisioned device's clock on from when it was stored: the outbound handler sends it", async () => {
    const member = fleetMember(spec, 2);
    const tenMinutesAgo = Date.now() - 600_000;
    const store = memoryStore();
    const provisioning = {
      routerId: member.id,
      pdserver: controller().url,
      wampRouter: 'ws://controller.test/ws',
      provisionedAt: new Date(tenMinutesAgo).toISOString(),
    };
    await store.write(member.id, { state: { provisioning }, clock: { now: tenMinutesAgo, elapsedMs: 0, speed: 0 } }, null);
    const fleet: LambdaFleet = { scenarios: await loadFleetScenarios(spec), store, origin: tenMinutesAgo, device: { controller: controller().url } };
    const status = await serveMember(fleet, member, 'request-2', (device) => device.provisioning.status());
    expect(status).toMatchObject({ provisioned: true, routerId: member.id, telemetry: { enabled: true, interval: 60 } });
    // What a report sent during the catch-up would take to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(controller().requests).toEqual([]);
  });

  it('keeps the apitoken a request provisioned the device with beside its state, never in it, and sends telemetry with it later', async () => {
    const member = fleetMember(spec, 0);
    const store = memoryStore();
    const fleet: LambdaFleet = { scenarios: await loadFleetScenarios(spec), store, origin: Date.now(), device: { controller: controller().url } };
    const credentials = { routerId: 'lab-router', apitoken: 'fleet-token', pdserver: controller().url, wampRouter: 'ws://controller.test/ws' };
    await serveMember(fleet, member, 'request-3', (device) => device.provisioning.provision(credentials));
    const item = await store.read(member.id);
    expect(item).toMatchObject({ version: 1, apitoken: 'fleet-token' });
    expect(JSON.stringify(item!.document)).not.toContain('fleet-token');
    expect(await serveMember(fleet, member, 'request-4', (_, scenario) => scenario.sendTelemetryNow())).toBe(true);
    expect(controller().requests.at(-1)).toMatchObject({ path: '/api/routers/lab-router/telemetry', authorization: 'Bearer fleet-token' });
    expect(await store.read(member.id)).toMatchObject({ version: 2, apitoken: 'fleet-token' });
  });
});

/** A table in memory, with the store's versions. */
function memoryStore(): DeviceStore {
  const items = new Map<string, Stored>();
  return {
    read: async (key) => structuredClone(items.get(key) ?? null),
    readMany: async (keys) => keys.map((key) => structuredClone(items.get(key) ?? null)),
    async write(key, document, after, apitoken) {
      if ((items.get(key)?.version ?? null) !== after) return false;
      items.set(key, { version: (after ?? 0) + 1, document: structuredClone(document), ...(apitoken === undefined ? {} : { apitoken }) });
      return true;
    },
  };
}
