import { describe, expect, it } from 'vitest';
import { parseMeminfo } from '../parsers/meminfo.ts';
import { deepFreeze } from './deep-freeze.ts';
import { ANSWERS_KEPT, reusingLast } from './reusing-last.ts';

describe('reusingLast', () => {
  /** The device whose texts these are. */
  const device = {};

  it('parses a text once while it stays the same, even when read again into a new string', () => {
    let parses = 0;
    const meminfo = reusingLast((text: string) => (parses++, parseMeminfo(text)));
    const first = meminfo(device, 'MemTotal: 1024 kB\n');
    const again = meminfo(device, ['MemTotal:', '1024 kB\n'].join(' '));
    expect(again).toBe(first);
    expect(parses).toBe(1);
  });

  it('answers what the new text says as soon as it changed: never an older answer', () => {
    const meminfo = reusingLast(parseMeminfo);
    expect(meminfo(device, 'MemTotal: 1024 kB\n').MemTotal).toBe(1048576);
    expect(meminfo(device, 'MemTotal: 2048 kB\n').MemTotal).toBe(2097152);
    expect(meminfo(device, 'MemTotal: 1024 kB\n').MemTotal).toBe(1048576);
  });

  it('answers a frozen value, so that a caller that edits it throws instead of changing later answers', () => {
    const meminfo = reusingLast(parseMeminfo);
    const answer = meminfo(device, 'MemTotal: 1024 kB\n');
    expect(() => (answer.MemTotal = 0)).toThrow(TypeError);
    expect(meminfo(device, 'MemTotal: 1024 kB\n').MemTotal).toBe(1048576);
  });

  it('keeps nothing when the derivation throws: the next call derives again', () => {
    let calls = 0;
    const strict = reusingLast((text: string) => {
      calls++;
      if (text === '') throw new Error('empty');
      return { text };
    });
    expect(() => strict(device, '')).toThrow('empty');
    expect(() => strict(device, '')).toThrow('empty');
    expect(calls).toBe(2);
  });

  it('works out again when any of several sources changed', () => {
    let calls = 0;
    const shifted = reusingLast((text: string, shift: number) => (calls++, `${text}+${shift}`));
    expect([shifted(device, 'a', 1), shifted(device, 'a', 1), shifted(device, 'a', 2), shifted(device, 'b', 2), shifted(device, 'b', 2)]).toEqual([
      'a+1',
      'a+1',
      'a+2',
      'b+2',
      'b+2',
    ]);
    expect(calls).toBe(3);
  });

  it('works out again from a list changed in place, which is the same object as before', () => {
    const usage = reusingLast((containers: { State: string }[]) => containers.map((container) => container.State));
    const containers = [{ State: 'running' }];
    expect(usage(device, containers)).toEqual(['running']);
    containers[0]!.State = 'exited';
    expect(usage(device, containers)).toEqual(['exited']);
  });

  it('reuses its answer for the same deep-frozen source, which cannot have changed', () => {
    let calls = 0;
    const usage = reusingLast((containers: readonly { State: string }[]) => (calls++, containers.map((container) => container.State)));
    const containers = deepFreeze([{ State: 'running' }]);
    expect([usage(device, containers), usage(device, containers)]).toEqual([['running'], ['running']]);
    expect(calls).toBe(1);
  });

  it('keeps the answers of the last few sources: a request that reads each network in turn parses each once', () => {
    let parses = 0;
    const meminfo = reusingLast((text: string) => (parses++, parseMeminfo(text)));
    const texts = ['MemTotal: 1 kB\n', 'MemTotal: 2 kB\n', 'MemTotal: 3 kB\n'];
    for (let round = 0; round < 3; round++) expect(texts.map((text) => meminfo(device, text).MemTotal)).toEqual([1024, 2048, 3072]);
    expect(parses).toBe(3);
  });

  it('keeps no more than ANSWERS_KEPT answers: the least recently used is derived again', () => {
    let parses = 0;
    const meminfo = reusingLast((text: string) => (parses++, parseMeminfo(text)));
    const texts = Array.from({ length: ANSWERS_KEPT + 1 }, (_, i) => `MemTotal: ${i} kB\n`);
    for (const text of texts) meminfo(device, text);
    meminfo(device, texts.at(-1)!);
    expect(parses).toBe(ANSWERS_KEPT + 1);
    meminfo(device, texts[0]!);
    expect(parses).toBe(ANSWERS_KEPT + 2);
  });

  it("keeps each device's last answers apart: devices of a fleet read in turn parse each of their texts once", () => {
    let parses = 0;
    const meminfo = reusingLast((text: string) => (parses++, parseMeminfo(text)));
    const fleet = Array.from({ length: ANSWERS_KEPT * 4 }, (_, i) => ({ device: {}, text: `MemTotal: ${i} kB\n` }));
    for (let round = 0; round < 3; round++) for (const { device: each, text } of fleet) meminfo(each, text);
    expect(parses).toBe(fleet.length);
  });

  it('answers from the sources alone: two devices with the same text get the same numbers', () => {
    const meminfo = reusingLast(parseMeminfo);
    expect(meminfo({}, 'MemTotal: 1024 kB\n')).toEqual(meminfo({}, 'MemTotal: 1024 kB\n'));
  });
});
