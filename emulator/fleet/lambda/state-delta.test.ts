import { describe, expect, it } from 'vitest';
import * as ssidPut from '../../../functions/networks/ssid.put.ts';
import { callFunction } from '../../../test/support/call-function.ts';
import { loadFleetScenarios, memberDevice } from '../member-device.ts';
import { fleetMember } from '../members.ts';
import { stateDelta, withDelta } from './state-delta.ts';

const spec = { size: 4, seed: 9, scenarios: [{ scenario: 'default', share: 1 }] };

/** Device `index` of the fleet, its changes taking no time. */
async function device(index: number) {
  return memberDevice(await loadFleetScenarios(spec), fleetMember(spec, index), { changeDelayMs: 0, clock: { speed: 0 } });
}

describe("a fleet device's state as what differs from its seed's", () => {
  it('is nothing for a device as its seed makes it', async () => {
    const router = await device(1);
    const base = await router.snapshot();
    expect(stateDelta(base, await router.snapshot())).toEqual({});
  });

  it('holds only the parts a write changed, and gives the whole state back', async () => {
    const router = await device(2);
    const base = await router.snapshot();
    expect((await callFunction(ssidPut, router.device, { chute: 'hotspot', network: 'guest' }, { ssid: 'lab-2' })).status).toBe(200);
    const renamed = stateDelta(base, await router.snapshot());
    expect(Object.keys(renamed)).toEqual(['networks']);
    expect(JSON.stringify(renamed).length).toBeLessThan(JSON.stringify(base).length / 10);
    const { id } = await router.device.submitChange({ action: 'delete', chute: 'hello-world' });
    await router.clock.set({ advanceMs: 0 });
    expect((await router.device.change(id))?.state).toBe('succeeded');
    const state = await router.snapshot();
    const delta = stateDelta(base, state);
    expect(Object.keys(delta).sort()).toEqual(['changes', 'chutes', 'engine', 'networks']);
    expect(delta.chutes).toEqual({ 'hello-world': null });
    expect(withDelta(base, delta, state.clock)).toEqual(state);
    // Restored on a new device of the same member, it reads as the device it was taken of.
    const again = await device(2);
    await again.restore(withDelta(await again.snapshot(), delta, state.clock));
    expect(await again.snapshot()).toEqual(state);
  });

  it('never takes a chute named as a key of the prototype for it', async () => {
    const base = await (await device(3)).snapshot();
    const delta = JSON.parse('{"chutes": {"__proto__": {"record": {}, "config": {}, "cache": {}}}}');
    const state = withDelta(base, delta, base.clock);
    expect(Object.getPrototypeOf(state.chutes)).toBe(Object.prototype);
    expect(Object.keys(state.chutes)).toContain('__proto__');
  });
});
