/**
 * A JSON value made read-only down to its leaves, and answered as it is: what is handed to several
 * callers at once (an emulated engine's answer, a parse that `reusingLast` shares), so that a handler
 * that tried to change it throws instead of changing every later answer.
 *
 * @example
 * const list = deepFreeze([{ State: 'running' }]);
 * list[0].State = 'exited'; // TypeError
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
