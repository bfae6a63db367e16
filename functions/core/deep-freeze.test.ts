import { describe, expect, it, vi } from 'vitest';
import { deepFreeze, isDeepFrozen, oncePerFrozen } from './deep-freeze.ts';

describe('deepFreeze', () => {
  it('makes every level read-only, so that a change throws', () => {
    const list = deepFreeze([{ State: 'running', Ports: [80] }]);
    expect(() => {
      (list[0] as { State: string }).State = 'exited';
    }).toThrow(TypeError);
    expect(() => (list[0]!.Ports as number[]).push(443)).toThrow(TypeError);
    expect(isDeepFrozen(list)).toBe(true);
  });

  it('freezes what an object frozen one level before holds', () => {
    const states = ['running'];
    const container = deepFreeze(Object.freeze({ name: 'hello-world', states }));
    expect(() => {
      states[0] = 'exited';
    }).toThrow(TypeError);
    expect(container.states).toEqual(['running']);
  });

  it('says an object frozen one level only is not deep-frozen', () => {
    expect(isDeepFrozen(Object.freeze({ states: ['running'] }))).toBe(false);
  });

  it('says a value holding bytes, a Map or a function is not deep-frozen, and freezes what it can of it', () => {
    const withMap = deepFreeze({ leases: new Map([['aa', 1]]), list: [1] });
    expect(isDeepFrozen(withMap)).toBe(false);
    expect(Object.isFrozen(withMap.list)).toBe(true);
    expect(isDeepFrozen(withMap.list)).toBe(true);
    expect(isDeepFrozen(deepFreeze({ bytes: new Uint8Array([1]) }))).toBe(false);
    expect(isDeepFrozen(deepFreeze({ toJSON: () => 1 }))).toBe(false);
  });

  it('shows nothing of what it knows in JSON, keys or copies, and takes neither a copy nor an heir as deep-frozen', () => {
    const frozen = deepFreeze({ ssid: 'lab', stations: [1] });
    expect(JSON.stringify(frozen)).toBe('{"ssid":"lab","stations":[1]}');
    expect(Object.keys(frozen)).toEqual(['ssid', 'stations']);
    expect(isDeepFrozen({ ...frozen })).toBe(false);
    expect(isDeepFrozen(Object.assign({}, frozen))).toBe(false);
    expect(isDeepFrozen(Object.create(frozen) as object)).toBe(false);
  });

  it("takes a value frozen by another bundle's copy of this module as deep-frozen", async () => {
    const frozen = deepFreeze({ stats: [{ rx_bytes: 1 }] });
    vi.resetModules();
    const copy = await import('./deep-freeze.ts');
    expect(copy.isDeepFrozen).not.toBe(isDeepFrozen);
    expect(copy.isDeepFrozen(frozen)).toBe(true);
  });
});

describe('oncePerFrozen', () => {
  it('derives once for a deep-frozen value, and again at every call for one that may change', () => {
    const derive = vi.fn((value: { stations: number[] }) => value.stations.length);
    const count = oncePerFrozen(derive);
    const frozen = deepFreeze({ stations: [1, 2] });
    expect([count(frozen), count(frozen)]).toEqual([2, 2]);
    expect(derive).toHaveBeenCalledTimes(1);
    const open = { stations: [1] };
    expect(count(open)).toBe(1);
    open.stations.push(2);
    expect(count(open)).toBe(2);
    expect(derive).toHaveBeenCalledTimes(3);
  });
});
