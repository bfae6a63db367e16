import type { LogEntry } from '../../functions/core/logs.ts';
import { HttpProblem } from '../../functions/core/problem.ts';

/** How many clients may follow a log at once (`GET /api/v1/logs?follow=true`, `/ws/paradrop_logs`). */
export const MAX_LOG_FOLLOWERS = 32;

/** Bytes of lines a follower may leave unread before it is dropped: a client that reads too slowly does not hold lines without end. */
export const MAX_UNREAD_BYTES = 256 * 1024;

/**
 * The bytes of a ring for each line it can index: fewer than a line of the daemon log takes (its
 * time, level and message alone take some 55), so that its bytes, not its index, bound what it holds.
 */
const BYTES_A_LINE = 32;

/** A line of the ring: the entry, and its time as milliseconds since the epoch (for `since` and `until`). */
export type RingEntry = LogEntry & { ms: number };

/** How the HTTP layer reads a log ring: what it holds, and each line added from now on. */
export interface LogLines {
  /** The lines held, oldest first. */
  lines(): RingEntry[];
  /** Calls `listener` with each line added from now on, and `ended` when the log ends (the server stops); the answer stops it. */
  follow(listener: (entry: RingEntry) => void, ended: () => void): () => void;
  /** How many listeners follow the log. */
  readonly followers: number;
}

/** What `LogRing.take` answers: the lines added since the last take that the ring still held, as bytes (`lines` of them), and how many it no longer held. */
export interface TakenLines {
  bytes: Buffer;
  lines: number;
  lost: number;
}

/**
 * Checks that one more client may follow `logs`.
 *
 * @throws HttpProblem 503 (with `Retry-After`) when `MAX_LOG_FOLLOWERS` already do.
 */
export function checkRoomToFollow(logs: LogLines): void {
  if (logs.followers >= MAX_LOG_FOLLOWERS) {
    throw new HttpProblem(503, `${MAX_LOG_FOLLOWERS} clients follow the log already: try again later, or ask without follow`, {
      headers: { 'retry-after': '10' },
    });
  }
}

/**
 * The most recent lines of a log, in `size` bytes, oldest first, and the listeners that follow it. A
 * line is kept as its UTF-8 and a newline in one buffer, so that holding lines makes no work for the
 * garbage collector; a line added when the buffer is full pushes out the oldest ones. `take()` hands
 * the lines added since it was last called to standard output.
 *
 * @example
 * const ring = new LogRing(64 * 1024);
 * ring.add('2026-11-28T10:00:00.000Z', 1795860000000, '{"msg":"hello"}');
 * ring.lines() // [{ time: '2026-11-28T10:00:00.000Z', ms: 1795860000000, stream: 'stdout', message: '{"msg":"hello"}' }]
 */
export class LogRing implements LogLines {
  readonly #bytes: Buffer;
  /** Where each line is in `#bytes` (its newline included), and its time, by `sequence % slots`. */
  readonly #starts: Uint32Array;
  readonly #ends: Uint32Array;
  readonly #ms: Float64Array;
  /** How many lines were ever added, how many are held (the last ones), how many were taken; where the next line goes. */
  #added = 0;
  #held = 0;
  #taken = 0;
  #head = 0;
  #untaken = 0;
  /** Each listener, and what to call when the log ends. */
  readonly #listeners = new Map<(entry: RingEntry) => void, () => void>();

  constructor(readonly size: number) {
    this.#bytes = Buffer.alloc(size);
    const slots = Math.ceil(size / BYTES_A_LINE);
    this.#starts = new Uint32Array(slots);
    this.#ends = new Uint32Array(slots);
    this.#ms = new Float64Array(slots);
  }

  /** Adds a line written at `time` (`ms`); a line over half the ring is cut. */
  add(time: string, ms: number, message: string): void {
    let length = Buffer.byteLength(message) + 1;
    if (length > this.size / 2) {
      message = message.slice(0, Math.floor(this.size / 8));
      length = Buffer.byteLength(message) + 1;
    }
    let at = this.#head;
    if (at + length > this.size) {
      // Too little room at the end: the line goes to the start, and the lines still at the end go.
      while (this.#held > 0 && this.#starts[this.#oldest()]! >= at) this.#held--;
      at = 0;
    }
    while (this.#held > 0 && (this.#held === this.#starts.length || this.#overlaps(this.#oldest(), at, at + length))) this.#held--;
    this.#bytes.write(message, at);
    this.#bytes[at + length - 1] = 0x0a;
    const slot = this.#added % this.#starts.length;
    this.#starts[slot] = at;
    this.#ends[slot] = at + length;
    this.#ms[slot] = ms;
    this.#added++;
    this.#held++;
    this.#head = at + length;
    this.#untaken += length;
    if (this.#listeners.size === 0) return;
    const entry: RingEntry = { time, ms, stream: 'stdout', message };
    for (const listener of this.#listeners.keys()) listener(entry);
  }

  lines(): RingEntry[] {
    const lines: RingEntry[] = [];
    for (let sequence = this.#added - this.#held; sequence < this.#added; sequence++) lines.push(this.#entry(sequence % this.#starts.length));
    return lines;
  }

  /** The lines added since the last take that the ring still holds, as their bytes (each with its newline), and how many it no longer held. */
  take(): TakenLines {
    const first = Math.max(this.#taken, this.#added - this.#held);
    const lost = first - this.#taken;
    const parts: Buffer[] = [];
    let runStart = -1;
    let runEnd = -1;
    for (let sequence = first; sequence < this.#added; sequence++) {
      const slot = sequence % this.#starts.length;
      if (this.#starts[slot] !== runEnd) {
        if (runStart >= 0) parts.push(this.#bytes.subarray(runStart, runEnd));
        runStart = this.#starts[slot]!;
      }
      runEnd = this.#ends[slot]!;
    }
    if (runStart >= 0) parts.push(this.#bytes.subarray(runStart, runEnd));
    const lines = this.#added - first;
    this.#taken = this.#added;
    this.#untaken = 0;
    return { bytes: Buffer.concat(parts), lines, lost };
  }

  /** Bytes of the lines added since the last take (some of which the ring may no longer hold). */
  get untaken(): number {
    return this.#untaken;
  }

  follow(listener: (entry: RingEntry) => void, ended: () => void): () => void {
    this.#listeners.set(listener, ended);
    return () => this.#listeners.delete(listener);
  }

  get followers(): number {
    return this.#listeners.size;
  }

  /** Ends the log for every listener (the server stops): each one's `ended` is called, and none follows any more. */
  end(): void {
    const ended = [...this.#listeners.values()];
    this.#listeners.clear();
    for (const end of ended) end();
  }

  #oldest(): number {
    return (this.#added - this.#held) % this.#starts.length;
  }

  #overlaps(slot: number, start: number, end: number): boolean {
    return this.#starts[slot]! < end && this.#ends[slot]! > start;
  }

  #entry(slot: number): RingEntry {
    const ms = this.#ms[slot]!;
    const message = this.#bytes.toString('utf8', this.#starts[slot], this.#ends[slot]! - 1);
    return { time: new Date(ms).toISOString(), ms, stream: 'stdout', message };
  }
}
