import { describe, expect, it } from 'vitest';
import { fleetMember, type FleetSpec } from './members.ts';
import { loadFleetScenarios, memberDevice } from './member-device.ts';

const SPEC: FleetSpec = { size: 3, seed: 5, scenarios: [{ scenario: 'default', share: 1 }] };

describe("a fleet member's device", () => {
  it('serves its scenario with its own seed, and a write to one changes no other', async () => {
    const scenarios = await loadFleetScenarios(SPEC);
    const [one, two] = [0, 1].map((index) => memberDevice(scenarios, fleetMember(SPEC, index), { changeDelayMs: 0, still: true, clock: { speed: 0 } }));
    expect(one!.seed()).toBe(fleetMember(SPEC, 0).seed);
    expect(two!.seed()).not.toBe(one!.seed());
    expect(await one!.device.chuteNames()).toEqual(await two!.device.chuteNames());
    const before = await two!.snapshot();
    const change = await one!.device.submitChange({ action: 'stop', chute: 'hotspot' });
    while ((await one!.device.change(change.id))?.state !== 'succeeded') await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await one!.snapshot()).changes).not.toEqual(before.changes);
    expect(await two!.snapshot()).toEqual(before);
  });
});
