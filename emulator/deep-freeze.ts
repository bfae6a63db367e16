/**
 * A JSON value made read-only down to its leaves, and answered as it is: what the emulator hands
 * several callers at once (as a device shares one engine request between concurrent calls), so that a
 * handler that tried to change it throws instead of changing every later answer.
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
