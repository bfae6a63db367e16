import { afterEach, describe, expect, it } from 'vitest';
import { DIST_FUNCTIONS } from '../../test/support/test-bundles.ts';
import { startFleet, type RunningFleet } from './start-fleet.ts';

const SIZE = 200;
const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe("a fleet's fault rules", () => {
  const fleets: RunningFleet[] = [];
  afterEach(async () => {
    await Promise.all(fleets.splice(0).map((fleet) => fleet.stop()));
  });
  const start = async () => {
    const fleet = await startFleet({ size: SIZE, seed: 11, auth: false, functionsDir: DIST_FUNCTIONS, provision: false, still: true });
    fleets.push(fleet);
    return fleet;
  };
  /** The indexes of the devices whose chute list fails. */
  const failing = async (fleet: RunningFleet) => {
    const statuses = await Promise.all(Array.from({ length: SIZE }, async (_, index) => (await fetch(`${fleet.deviceUrl(index)}/api/v1/chutes`)).status));
    return statuses.flatMap((status, index) => (status === 503 ? [index] : []));
  };
  const RULE = { match: { path: '/api/v1/chutes' }, effect: { status: 503 } };

  it('fail a share of the fleet, the same devices at every start, and none once deleted', async () => {
    const fleet = await start();
    // Some devices built before the rule, the others after: both kinds take it.
    await fetch(`${fleet.deviceUrl(0)}/api/v1/chutes`);
    const added = await fetch(`${fleet.url}/_chutebox/faults`, json({ ...RULE, devices: { share: 0.1 } }));
    expect(added.status).toBe(201);
    const rule = (await added.json()) as { id: string; devices: unknown };
    expect(rule.devices).toEqual({ share: 0.1 });
    const down = await failing(fleet);
    expect(down.length).toBeGreaterThan(SIZE * 0.05);
    expect(down.length).toBeLessThan(SIZE * 0.15);
    const again = await start();
    await fetch(`${again.url}/_chutebox/faults`, json({ ...RULE, id: rule.id, devices: { share: 0.1 } }));
    expect(await failing(again)).toEqual(down);
    expect((await fetch(`${fleet.url}/_chutebox/faults/${rule.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await failing(fleet)).toEqual([]);
    expect(await (await fetch(`${fleet.url}/_chutebox/faults`)).json()).toEqual({ rules: [] });
  });

  it('fail the devices named, or every device when none is named', async () => {
    const fleet = await start();
    await fetch(`${fleet.url}/_chutebox/faults`, json({ ...RULE, devices: { ids: ['router-3', 'router-150'] } }));
    expect(await failing(fleet)).toEqual([3, 150]);
    await fetch(`${fleet.url}/_chutebox/faults`, { method: 'DELETE' });
    await fetch(`${fleet.url}/_chutebox/faults`, json(RULE));
    expect((await failing(fleet)).length).toBe(SIZE);
  });

  it('refuse a rule that does not check, naming the field, and change nothing', async () => {
    const fleet = await start();
    const refused = await fetch(`${fleet.url}/_chutebox/faults`, json({ ...RULE, devices: { share: 2 } }));
    expect(refused.status).toBe(422);
    expect(JSON.stringify(await refused.json())).toContain('body.devices.share');
    const bad = await fetch(`${fleet.url}/_chutebox/faults`, json({ match: { path: '/api/v1/chutes' }, effect: { status: 99 } }));
    expect(bad.status).toBe(422);
    expect(await (await fetch(`${fleet.url}/_chutebox/faults`)).json()).toEqual({ rules: [] });
    expect(await failing(fleet)).toEqual([]);
  });
});
