/**
 * How a value `deepFreeze` made unchangeable, with all it holds, is known: its own property under
 * this symbol holds the value itself (an inherited one holds another), defined just before it is
 * frozen, hidden from JSON and copies. The symbol is the same in every bundle (`Symbol.for`): each
 * carries its own copy of this module, and a value the emulator froze (an engine's answer) is as
 * unchangeable to the function bundle that reads it. A mark, not a `WeakSet`: a set of every frozen
 * value made each lookup and each addition cost more as a fleet's devices filled it.
 */
const MARK = Symbol.for('chutebox.deep-frozen');

/** The values frozen before `deepFreeze` met them, which can hold no mark: few, and kept as long as they live. */
const frozenUnmarked: WeakSet<object> = ((globalThis as Record<symbol, WeakSet<object> | undefined>)[Symbol.for('chutebox.frozen-unmarked')] ??=
  new WeakSet<object>());

/**
 * A JSON value made read-only down to its leaves, and answered as it is: what is handed to several
 * callers at once (an emulated engine's answer, a parse that `reusingLast` shares), so that a handler
 * that tried to change it throws instead of changing every later answer. An object frozen before
 * (`Object.freeze` freezes one level) is gone through too: what it holds may not be. A value that
 * holds something no freeze can fix (bytes, a `Map`, a function) is frozen as far as it goes, but
 * not taken as unchangeable (`isDeepFrozen`).
 *
 * @example
 * const list = deepFreeze([{ State: 'running' }]);
 * list[0].State = 'exited'; // TypeError
 */
export function deepFreeze<T>(value: T): T {
  freeze(value);
  return value;
}

/** Freezes `value` all the way down, what it holds first; whether it can now never change. */
function freeze(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'function';
  if (isDeepFrozen(value)) return true;
  if (ArrayBuffer.isView(value)) return false;
  let all = Array.isArray(value) || isPlainObject(value);
  for (const child of Object.values(value)) all = freeze(child) && all;
  if (!all) {
    Object.freeze(value);
    return false;
  }
  if (Object.isExtensible(value)) Object.defineProperty(value, MARK, { value });
  else frozenUnmarked.add(value);
  Object.freeze(value);
  return true;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Whether `deepFreeze` froze `value` and all it holds, so that it can never change. (Frozen by
 * `Object.freeze` alone, an object may hold one that changes.)
 *
 * @example
 * isDeepFrozen(deepFreeze({ list: [1] })) // true
 * isDeepFrozen(Object.freeze({ list: [1] })) // false: its list may change
 */
export function isDeepFrozen(value: object): boolean {
  return (value as { [MARK]?: unknown })[MARK] === value || frozenUnmarked.has(value);
}

/**
 * `derive`, made once for each deep-frozen value and kept beside it for as long as it lives (a
 * `WeakMap`): such a value can never change, so neither can what is made from it alone. What is kept
 * is shared by every later call, so it is deep-frozen too; a value that is not deep-frozen is derived
 * again at every call, and its answer left as made. For what many requests make from the same frozen
 * part (its JSON, a kept reply's headers).
 *
 * @example
 * const json = oncePerFrozen((value: object) => JSON.stringify(value));
 * const cpus = deepFreeze([{ user: 612.34 }]);
 * json(cpus) === json(cpus) // true: serialised once
 */
export function oncePerFrozen<Value extends object, Derived>(derive: (value: Value) => Derived): (value: Value) => Derived {
  const kept = new WeakMap<Value, Derived>();
  return (value) => {
    if (!isDeepFrozen(value)) return derive(value);
    if (kept.has(value)) return kept.get(value)!;
    const derived = deepFreeze(derive(value));
    kept.set(value, derived);
    return derived;
  };
}
