import { PassThrough, Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { FLUSH_MS, LineWriter } from './line-writer.ts';
import { LogRing } from './ring.ts';

const dropped = (count: number) => `dropped ${count}`;
const waitForFlush = () => new Promise((resolve) => setTimeout(resolve, FLUSH_MS + 50));

/** A stream that records each write as one chunk, and takes it at once. */
function recording() {
  const writes: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  return { out, writes };
}

/** A ring of `size` bytes and a writer of it to `out`; `add` adds a line and tells the writer. */
function writing(out: ConstructorParameters<typeof LineWriter>[0], size = 64 * 1024, maxUnwritten?: number) {
  const ring = new LogRing(size);
  const writer = new LineWriter(out, ring, dropped, maxUnwritten);
  const add = (message: string) => {
    ring.add(new Date().toISOString(), Date.now(), message);
    writer.added();
  };
  return { ring, writer, add };
}

describe('writing log lines to standard output', () => {
  it(`writes the lines of ${FLUSH_MS} ms in one write`, async () => {
    const { out, writes } = recording();
    const { add } = writing(out);
    add('a');
    add('b');
    await nextTurn();
    expect(writes).toEqual([]);
    await waitForFlush();
    add('c');
    await waitForFlush();
    expect(writes).toEqual(['a\nb\n', 'c\n']);
  });

  it('writes at the next turn once the lines not written fill a quarter of the ring', async () => {
    const { out, writes } = recording();
    const { add } = writing(out, 1024);
    for (let i = 0; i < 8; i++) add(`${i}`.padEnd(39, '.'));
    await nextTurn();
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split('\n').filter(Boolean)).toHaveLength(8);
  });

  it('never waits for a stream that is read too slowly: it drops the lines and counts them, and says so once it can write', async () => {
    let held = true;
    const writes: string[] = [];
    const out = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, done) {
        writes.push(chunk.toString());
        const release = () => (held ? setTimeout(release, 5) : done());
        release();
      },
    });
    const { writer, add } = writing(out, 64 * 1024, 10);
    add('first line, held by the stream');
    writer.flush();
    add('lost 1');
    add('lost 2');
    writer.flush();
    expect(writer.dropped).toBe(2);
    held = false;
    await new Promise((resolve) => setTimeout(resolve, 20));
    add('after');
    writer.flush();
    expect(writes).toEqual(['first line, held by the stream\n', 'dropped 2\nafter\n']);
  });

  it('counts the lines the ring let go before they were written as dropped', async () => {
    const { out, writes } = recording();
    const { ring, writer } = writing(out, 1024);
    // Added without telling the writer: more than the ring holds.
    for (let i = 0; i < 40; i++) ring.add(new Date().toISOString(), Date.now(), `${i}`.padEnd(39, '.'));
    writer.flush();
    expect(writer.dropped).toBe(40 - ring.lines().length);
    expect(writes).toEqual([
      `dropped ${writer.dropped}\n${ring
        .lines()
        .map((line) => `${line.message}\n`)
        .join('')}`,
    ]);
  });

  it('drops the lines, without an error, once the stream is closed under it (EPIPE)', async () => {
    const out = new PassThrough();
    const { writer, add } = writing(out);
    out.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await nextTurn();
    add('nobody reads this');
    writer.flush();
    expect(writer.dropped).toBe(1);
  });

  it('writes what is left on close and waits for the stream to take it', async () => {
    const { out, writes } = recording();
    const { writer, add } = writing(out);
    add('last words');
    await writer.close(1000);
    expect(writes).toEqual(['last words\n']);
  });
});
