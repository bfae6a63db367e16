import type { Writable } from 'node:stream';
import type { TakenLines } from './ring.ts';

/** Unwritten bytes a stream may hold before lines are dropped: standard output is read too slowly, or not at all. */
export const MAX_UNWRITTEN_BYTES = 1024 * 1024;

/** How long a line may wait for the next write: lines are written together, as a write costs far more than a line. */
export const FLUSH_MS = 100;

/** What a `LineWriter` writes to: standard output, or any stream. */
export type LineStream = Pick<Writable, 'write' | 'writableLength' | 'on'>;

/** Where a `LineWriter` takes its lines from: a log ring (runtime/log/ring.ts). */
export interface LineSource {
  take(): TakenLines;
  /** Bytes added since the last take. */
  readonly untaken: number;
  readonly size: number;
}

/**
 * Writes the lines of a log ring to a stream without ever making the server wait or holding them
 * itself: told of new lines (`added`), it takes them from the ring after `FLUSH_MS`, or in the next
 * turn once they fill a quarter of the ring, and writes them in one write. Lines the ring no longer
 * held when taken, and lines taken while the stream still holds more than `MAX_UNWRITTEN_BYTES` (its
 * reader is slow, or stopped) or after it closed, are dropped and counted; the next write starts with
 * `droppedLine(count)`.
 *
 * @example
 * const writer = new LineWriter(process.stdout, ring, (count) => `{"msg":"${count} lines dropped"}`);
 * ring.add(time, ms, '{"msg":"hello"}');
 * writer.added();
 */
export class LineWriter {
  #timer: NodeJS.Timeout | undefined;
  #soon = false;
  #closed = false;
  /** Lines dropped since the last notice of it. */
  #unnoticed = 0;
  /** Lines dropped in all. */
  dropped = 0;

  constructor(
    private readonly out: LineStream,
    private readonly source: LineSource,
    private readonly droppedLine: (count: number) => string,
    private readonly maxUnwritten = MAX_UNWRITTEN_BYTES,
  ) {
    // A closed standard output (EPIPE: its reader went away) is no reason to stop serving.
    out.on('error', () => {
      this.#closed = true;
    });
  }

  /** Says that the source has new lines: they are written within `FLUSH_MS`, or at the next turn when many. */
  added(): void {
    if (!this.#soon && this.source.untaken > this.source.size / 4) {
      this.#soon = true;
      setImmediate(() => this.flush());
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.flush(), FLUSH_MS).unref();
    }
  }

  /** Writes the lines not written yet, in one write; `done` is called once the stream took them, or at once when nothing was written. */
  flush(done?: () => void): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#soon = false;
    const { bytes, lines, lost } = this.source.take();
    this.#drop(lost);
    const writable = !this.#closed && this.out.writableLength <= this.maxUnwritten;
    if (lines === 0 || !writable) {
      this.#drop(lines);
      done?.();
      return;
    }
    const notice = this.#unnoticed > 0 ? `${this.droppedLine(this.#unnoticed)}\n` : '';
    this.#unnoticed = 0;
    this.out.write(notice === '' ? bytes : Buffer.concat([Buffer.from(notice), bytes]), done);
  }

  /** Writes the lines not written yet and resolves once the stream took them, or after `waitMs`: before the process exits. */
  close(waitMs: number): Promise<void> {
    return new Promise((resolve) => {
      setTimeout(resolve, waitMs).unref();
      this.flush(() => resolve());
    });
  }

  #drop(count: number): void {
    this.dropped += count;
    this.#unnoticed += count;
  }
}
