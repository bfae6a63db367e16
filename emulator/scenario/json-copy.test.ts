import { describe, expect, it } from 'vitest';
import { jsonCopy } from './json-copy.ts';

describe('jsonCopy', () => {
  it('copies objects and arrays all the way down: editing the copy leaves the original as it was', () => {
    const original = { name: 'lab', net: { wifi: { ssid: 'lab', dns: ['1.1.1.1'] } }, resources: null, weight: Number.NaN };
    const copy = jsonCopy(original);
    expect(copy).toStrictEqual(original);
    copy.net.wifi.ssid = 'edited';
    copy.net.wifi.dns.push('9.9.9.9');
    expect(original.net.wifi).toEqual({ ssid: 'lab', dns: ['1.1.1.1'] });
  });

  it('keeps an own __proto__ key a key, as JSON.parse makes it', () => {
    const copy = jsonCopy(JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('takes what is not an array or a plain object as it is', () => {
    const when = new Date(0);
    expect(jsonCopy({ when }).when).toBe(when);
  });
});
