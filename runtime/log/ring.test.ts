import { describe, expect, it } from 'vitest';
import type { HttpProblem } from '../../functions/core/problem.ts';
import { checkRoomToFollow, LogRing, MAX_LOG_FOLLOWERS } from './ring.ts';

/** Adds `message` as written at second `i`. */
function add(ring: LogRing, i: number, message = `line ${i}`): void {
  ring.add(new Date(i * 1000).toISOString(), i * 1000, message);
}
const messages = (ring: LogRing) => ring.lines().map((line) => line.message);

describe('the ring of recent log lines', () => {
  it('keeps every line, oldest first, with its time, while it has room', () => {
    const ring = new LogRing(1024);
    add(ring, 1);
    add(ring, 2, 'ünïcödé ✓');
    expect(ring.lines()).toEqual([
      { time: '1970-01-01T00:00:01.000Z', ms: 1000, stream: 'stdout', message: 'line 1' },
      { time: '1970-01-01T00:00:02.000Z', ms: 2000, stream: 'stdout', message: 'ünïcödé ✓' },
    ]);
  });

  /** A line of 39 bytes, 40 with its newline, as long as the shortest lines of the daemon log. */
  const long = (i: number) => `line ${String(i).padStart(3, '0')} ${'.'.repeat(30)}`;

  it('keeps only the last lines that fit in its bytes: each new line pushes out the oldest ones', () => {
    const ring = new LogRing(1000);
    for (let i = 1; i <= 80; i++) add(ring, i, long(i));
    // 25 lines of 40 bytes fill 1000 bytes; a line is never split at the end, and the next one pushes out the oldest.
    expect(messages(ring)).toEqual(Array.from({ length: 25 }, (_, i) => long(i + 56)));
    add(ring, 81, long(81));
    expect(messages(ring)).toEqual(Array.from({ length: 25 }, (_, i) => long(i + 57)));
  });

  it('holds the newest lines intact, within its size, whatever their lengths', () => {
    const ring = new LogRing(512);
    const all: string[] = [];
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const message = `${i}:${'é-x'.repeat(8 + (seed % 50))}`;
      all.push(message);
      add(ring, i, message);
      const held = messages(ring);
      expect(held).toEqual(all.slice(all.length - held.length));
      expect(held.reduce((bytes, line) => bytes + Buffer.byteLength(line) + 1, 0)).toBeLessThanOrEqual(512);
      // At worst the end of the buffer is left empty, as long as the line that did not fit there.
      expect(held.reduce((bytes, line) => bytes + Buffer.byteLength(line) + 1, 0)).toBeGreaterThan(512 - 2 * (6 + 4 * 58));
    }
  });

  it('cuts a line longer than half its size', () => {
    const ring = new LogRing(800);
    add(ring, 1, 'x'.repeat(1000));
    expect(messages(ring)).toEqual(['x'.repeat(100)]);
  });

  it('hands the lines added since the last take to standard output as bytes, and counts those it let go before', () => {
    const ring = new LogRing(1000);
    add(ring, 1, 'one');
    add(ring, 2, 'two');
    expect(ring.untaken).toBe(8);
    expect(ring.take()).toEqual({ bytes: Buffer.from('one\ntwo\n'), lines: 2, lost: 0 });
    expect(ring.take()).toEqual({ bytes: Buffer.alloc(0), lines: 0, lost: 0 });
    for (let i = 0; i < 40; i++) add(ring, i, long(i));
    const taken = ring.take();
    expect(messages(ring)).toHaveLength(24);
    expect(taken).toMatchObject({ lines: 24, lost: 16 });
    expect(taken.bytes.toString()).toBe(
      messages(ring)
        .map((line) => `${line}\n`)
        .join(''),
    );
  });

  it('hands each new line to its followers until they stop, and tells them when the log ends', () => {
    const ring = new LogRing(1024);
    add(ring, 1);
    const seen: string[] = [];
    const ended: string[] = [];
    const stop = ring.follow(
      (line) => seen.push(line.message),
      () => ended.push('first'),
    );
    ring.follow(
      () => undefined,
      () => ended.push('second'),
    );
    add(ring, 2);
    stop();
    add(ring, 3);
    expect(seen).toEqual(['line 2']);
    expect(ring.followers).toBe(1);
    ring.end();
    expect(ended).toEqual(['second']);
    expect(ring.followers).toBe(0);
  });

  it(`refuses a follower with 503 once ${MAX_LOG_FOLLOWERS} follow`, () => {
    const ring = new LogRing(1024);
    const follow = () =>
      ring.follow(
        () => undefined,
        () => undefined,
      );
    for (let i = 0; i < MAX_LOG_FOLLOWERS - 1; i++) follow();
    expect(() => checkRoomToFollow(ring)).not.toThrow();
    follow();
    expect(() => checkRoomToFollow(ring)).toThrow(expect.objectContaining({ status: 503, headers: { 'retry-after': '10' } }) as HttpProblem);
  });
});
