import { describe, expect, it } from 'vitest';
import { allAtHand, answeredAtHand, atHand, keptAtHand, NOT_AT_HAND, thenAtHand, valueAtHand } from './at-hand.ts';

describe('valueAtHand', () => {
  it('answers the value of an atHand promise, and of anything that is not a promise, without waiting', async () => {
    const promise = atHand({ uptime: 3 });
    expect(valueAtHand(promise)).toEqual({ uptime: 3 });
    expect(await promise).toEqual({ uptime: 3 });
    expect(valueAtHand('text')).toBe('text');
    expect(valueAtHand(null)).toBeNull();
  });

  it('answers NOT_AT_HAND for a promise that does not say its value', async () => {
    const promise = Promise.resolve(3);
    await promise;
    expect(valueAtHand(promise)).toBe(NOT_AT_HAND);
  });
});

describe('keptAtHand', () => {
  it('says its value once it has settled, not before', async () => {
    let resolve!: (value: string) => void;
    const promise = keptAtHand(new Promise<string>((r) => (resolve = r)));
    expect(valueAtHand(promise)).toBe(NOT_AT_HAND);
    resolve('done');
    await promise;
    expect(valueAtHand(promise)).toBe('done');
  });

  it('never says a value for a promise that failed', async () => {
    const promise = keptAtHand(Promise.reject(new Error('gone')));
    await expect(promise).rejects.toThrow('gone');
    expect(valueAtHand(promise)).toBe(NOT_AT_HAND);
  });
});

describe('thenAtHand', () => {
  it('runs the next step at once for a value at hand, and its answer is at hand too', () => {
    const next = thenAtHand(atHand('router\n'), (text) => text.trim());
    expect(valueAtHand(next)).toBe('router');
  });

  it('waits for a promise that is not at hand, as then() does', async () => {
    const next = thenAtHand(Promise.resolve('router\n'), (text) => text.trim());
    expect(valueAtHand(next)).toBe(NOT_AT_HAND);
    expect(await next).toBe('router');
  });

  it('answers what the next step threw as a rejected promise', async () => {
    const next = thenAtHand(atHand(1), () => {
      throw new Error('no such chute');
    });
    await expect(next).rejects.toThrow('no such chute');
  });
});

describe('allAtHand', () => {
  it('is at hand when every answer is, and waits for all otherwise', async () => {
    expect(valueAtHand(allAtHand<[number, string]>([atHand(1), atHand('a')]))).toEqual([1, 'a']);
    const waiting = allAtHand<[number, string]>([atHand(1), Promise.resolve('a')]);
    expect(valueAtHand(waiting)).toBe(NOT_AT_HAND);
    expect(await waiting).toEqual([1, 'a']);
  });
});

describe('answeredAtHand', () => {
  it('answers a computed value at hand, and what it threw as a rejection', async () => {
    const read = answeredAtHand((file: string) => {
      if (file === '') throw new Error('no path');
      return file.length;
    });
    expect(valueAtHand(read('/etc/hostname'))).toBe(13);
    await expect(read('')).rejects.toThrow('no path');
  });
});
