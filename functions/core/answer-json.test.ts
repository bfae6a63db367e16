import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { answerJson } from './answer-json.ts';
import { deepFreeze } from './deep-freeze.ts';

describe('answerJson', () => {
  it('answers what JSON.stringify answers, frozen parts or not', () => {
    const cpus = deepFreeze([
      { user: 612.34, nice: 0.12 },
      { user: 588.71, nice: 0 },
    ]);
    const values: unknown[] = [
      { time: 1795551682.096, system: { cpu_count: 2, cpu_times: cpus, load: [0.2, 0.18, 0.12] }, network: deepFreeze({ eth0: { rx: 2 ** 40 } }) },
      {
        skipped: undefined,
        fn: () => 1,
        kept: null,
        nan: Number.NaN,
        list: [undefined, () => 1, 'x'],
        nested: { deeper: { deepest: { a: [1, { b: undefined }] } } },
      },
      { '': 'empty key', 'quote"key': 'line\nbreak', 2: 'number key', 1: 'first' },
      { date: new Date(Date.UTC(2026, 10, 24)), own: { toJSON: () => 'from toJSON' }, map: new Map([[1, 2]]), set: new Set([1]) },
      [cpus, { cpus }],
      deepFreeze({ a: { b: [1, 2, { c: 'd' }] } }),
      {},
      [],
      'text',
      42,
      null,
      true,
    ];
    for (const value of values) expect(answerJson(value)).toBe(JSON.stringify(value));
  });

  it('answers null for no answer (undefined)', () => {
    expect(answerJson(undefined)).toBe('null');
  });

  it('makes the JSON of a deep-frozen part once, however many answers hold it', () => {
    const counters = deepFreeze({ rx_bytes: 2863876 });
    const stringify = vi.spyOn(JSON, 'stringify');
    onTestFinished(() => stringify.mockRestore());
    expect(answerJson({ time: 1, network: counters })).toBe('{"time":1,"network":{"rx_bytes":2863876}}');
    expect(answerJson({ time: 2, network: counters })).toBe('{"time":2,"network":{"rx_bytes":2863876}}');
    expect(answerJson({ time: 3, system: { network: counters } })).toBe('{"time":3,"system":{"network":{"rx_bytes":2863876}}}');
    expect(stringify.mock.calls.filter(([value]) => value === counters)).toHaveLength(1);
  });

  it('answers what a part frozen one level holds now, when that changed in place', () => {
    const states = ['running'];
    const container = Object.freeze({ name: 'hello-world', states });
    expect(answerJson({ containers: [container], time: 1 })).toBe('{"containers":[{"name":"hello-world","states":["running"]}],"time":1}');
    expect(answerJson({ container, time: 1 })).toBe('{"container":{"name":"hello-world","states":["running"]},"time":1}');
    states[0] = 'exited';
    expect(answerJson({ container, time: 2 })).toBe('{"container":{"name":"hello-world","states":["exited"]},"time":2}');
  });

  it('serialises an object that is not frozen as it is now, every time', () => {
    const load = { one: 0.2 };
    const answer = { time: 1, system: { load } };
    expect(answerJson(answer)).toBe('{"time":1,"system":{"load":{"one":0.2}}}');
    load.one = 0.5;
    expect(answerJson(answer)).toBe('{"time":1,"system":{"load":{"one":0.5}}}');
  });
});
