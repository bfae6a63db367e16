/**
 * A deep copy of a JSON value (arrays and plain objects are copied, anything else is taken as it
 * is): what the emulator hands each caller of a document it keeps, so that a caller who edits its
 * copy changes no later answer. Cheaper than `structuredClone` for a scenario's small documents,
 * which the emulator copies on every request.
 *
 * @example
 * const record = { name: 'lab', environment: { PORT: '80' } };
 * jsonCopy(record).environment.PORT = '81'; // record is unchanged
 */
export function jsonCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const list = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) list[i] = jsonCopy(value[i]);
    return list as T;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const child = jsonCopy(value[key]);
    // An own `__proto__` key (JSON and YAML can hold one) stays a key; assigning it would set the prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: child, enumerable: true, writable: true, configurable: true });
    else copy[key] = child;
  }
  return copy as T;
}
