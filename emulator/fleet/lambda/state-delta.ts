import { isDeepStrictEqual } from 'node:util';
import type { EmulatorState } from '../../emulator-state.ts';
import type { ChuteDocuments } from '../../scenario/chutes.ts';

/**
 * What a device's state differs in from the state of the device its seed makes (its `base`): each part
 * of the state that differs, the chutes one by one (null for a chute of the base that is gone). The
 * clock is not in it: it differs always, and is kept beside it. An untouched device's is `{}`.
 *
 * @example
 * { networks: [{ chute: 'hotspot', network: 'guest', ssid: 'lab', disconnected: [] }], chutes: { 'hello-world': null } }
 */
export type StateDelta = Partial<Omit<EmulatorState, 'chutes' | 'clock'>> & { chutes?: Record<string, ChuteDocuments | null> };

/**
 * The parts of `state` that differ from `base`'s, but the clock.
 *
 * @example
 * stateDelta(base, base) // {}
 */
export function stateDelta(base: EmulatorState, state: EmulatorState): StateDelta {
  const delta: Record<string, unknown> = {};
  for (const key of Object.keys(state) as (keyof EmulatorState)[]) {
    if (key === 'clock' || key === 'chutes' || isDeepStrictEqual(state[key], base[key])) continue;
    delta[key] = state[key];
  }
  const chutes: Record<string, ChuteDocuments | null> = {};
  for (const [name, documents] of Object.entries(state.chutes)) if (!isDeepStrictEqual(documents, base.chutes[name])) chutes[name] = documents;
  for (const name of Object.keys(base.chutes)) if (!Object.hasOwn(state.chutes, name)) chutes[name] = null;
  if (Object.keys(chutes).length > 0) delta.chutes = chutes;
  return delta as StateDelta;
}

/**
 * The state that is `base` with `delta`'s parts in place of its own, at the `clock` given: what
 * `stateDelta(base, state)` was taken of, with that state's clock.
 */
export function withDelta(base: EmulatorState, delta: StateDelta, clock: EmulatorState['clock']): EmulatorState {
  const { chutes: changed = {}, ...parts } = delta;
  // A map, then own properties: a name is never a key of the object's prototype.
  const chutes = new Map(Object.entries(base.chutes));
  for (const [name, documents] of Object.entries(changed)) {
    if (documents === null) chutes.delete(name);
    else chutes.set(name, documents);
  }
  return { ...base, ...parts, chutes: Object.fromEntries(chutes), clock };
}
