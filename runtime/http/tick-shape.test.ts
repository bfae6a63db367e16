import { createHook } from 'node:async_hooks';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { keepTickShape } from './tick-shape.ts';

/** A tick object as `process.nextTick` makes it, taken from an async hook's `init`. */
function tickObject(): object {
  let tick: object | undefined;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject') tick ??= resource as object;
    },
  }).enable();
  process.nextTick(() => {});
  hook.disable();
  if (tick === undefined) throw new Error('process.nextTick made no TickObject');
  return tick;
}

/** V8's own answer to whether two objects have one hidden class (`%HaveSameMap`). */
function haveSameClass(a: object, b: object): boolean {
  setFlagsFromString('--allow-natives-syntax');
  return new Function('a', 'b', 'return %HaveSameMap(a, b)')(a, b) as boolean;
}

describe('keepTickShape', () => {
  it('keeps an object of the hidden class of the tick objects of process.nextTick', () => {
    // Fails when Node's tick objects change shape: the kept object then keeps nothing alive.
    expect(haveSameClass(keepTickShape(), tickObject())).toBe(true);
  });

  it('keeps one object for the process', () => {
    expect(keepTickShape()).toBe(keepTickShape());
  });
});
