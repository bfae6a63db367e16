import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChangeRecord } from '../../functions/core/device/index.ts';
import { followChange, streamMessage, type ChangeStreamOptions } from './change-stream.ts';

/**
 * The change stream without a websocket: a change held in memory that a test moves on, a sink that
 * records what would go on the websocket, and a pause that lets the stream read again only when the
 * test says so.
 */

const T0 = '2026-11-21T12:00:00.000Z';
const T1 = '2026-11-21T12:00:01.500Z';
const NOW = Date.parse('2026-11-21T13:00:00.000Z');

function record(state: ChangeRecord['state'], messages: ChangeRecord['messages']): ChangeRecord {
  return { id: 7, action: 'stop', chute: 'hello', state, created: T0, updated: T0, messages };
}

/** A device with one change (id 7) that the test changes in place; counts its reads. */
function changeDevice(change: ChangeRecord | null) {
  const device = {
    current: change,
    reads: 0,
    async change(id: number) {
      device.reads++;
      return id === 7 && device.current !== null ? structuredClone(device.current) : null;
    },
    now: () => NOW,
  };
  return device;
}

/** What the stream sent (decoded) and how it closed. */
function recordingSink() {
  const sent: unknown[] = [];
  let closed!: (close: { code: number; reason: string }) => void;
  const sink = {
    sent,
    closed: new Promise<{ code: number; reason: string }>((resolve) => (closed = resolve)),
    send: (text: string) => void sent.push(JSON.parse(text)),
    close: (code: number, reason: string) => closed({ code, reason }),
  };
  return sink;
}

/** A pause the test ends: `paused()` resolves once the stream waits, `resume()` lets it read again. */
function steppedPause() {
  const waiting: (() => void)[] = [];
  let onPause: (() => void) | undefined;
  const pause: NonNullable<ChangeStreamOptions['pause']> = (signal) =>
    new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => resolve());
      waiting.push(resolve);
      onPause?.();
    });
  return {
    pause,
    paused: () => (waiting.length > 0 ? Promise.resolve() : new Promise<void>((resolve) => (onPause = resolve))),
    resume: () => {
      onPause = undefined;
      waiting.shift()!();
    },
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the change stream of /ws/changes/:id/stream', () => {
  it('sends the messages so far, oldest first, then each new one once, and closes with 1000 once the change succeeded', async () => {
    const device = changeDevice(record('queued', [{ time: T0, text: 'queued: stop chute hello' }]));
    const sink = recordingSink();
    const steps = steppedPause();
    followChange(device, 7, sink, { pause: steps.pause });

    await steps.paused();
    expect(sink.sent).toEqual([{ time: 1795262400, message: 'queued: stop chute hello' }]);

    // Nothing new: nothing sent.
    steps.resume();
    await steps.paused();
    expect(sink.sent).toHaveLength(1);

    device.current = record('running', [...device.current!.messages, { time: T1, text: 'running: stop chute hello' }]);
    steps.resume();
    await steps.paused();
    expect(sink.sent).toEqual([
      { time: 1795262400, message: 'queued: stop chute hello' },
      { time: 1795262401.5, message: 'running: stop chute hello' },
    ]);

    device.current = record('succeeded', [
      ...device.current!.messages,
      { time: T1, text: 'stopped its container' },
      { time: T1, text: 'succeeded: stop chute hello' },
    ]);
    steps.resume();
    expect(await sink.closed).toEqual({ code: 1000, reason: 'change 7 succeeded' });
    expect(sink.sent.map((message) => (message as { message: string }).message)).toEqual([
      'queued: stop chute hello',
      'running: stop chute hello',
      'stopped its container',
      'succeeded: stop chute hello',
    ]);
  });

  it('replays a change that already failed and closes with 1000 without waiting', async () => {
    const device = changeDevice(
      record('failed', [
        { time: T0, text: 'queued' },
        { time: T1, text: 'failed: image hello:2 is missing' },
      ]),
    );
    const sink = recordingSink();
    const pause = vi.fn(async () => {});
    followChange(device, 7, sink, { pause });
    expect(await sink.closed).toEqual({ code: 1000, reason: 'change 7 failed' });
    expect(sink.sent).toEqual([
      { time: 1795262400, message: 'queued' },
      { time: 1795262401.5, message: 'failed: image hello:2 is missing' },
    ]);
    expect(pause).not.toHaveBeenCalled();
  });

  it('never sends a message whose text is not a string, and gives a message with an unreadable time the clock time', async () => {
    const messages = [{ time: T0, text: 'queued' }, { time: T0, text: 42 }, { time: 'yesterday', text: 'running' }, null, { time: T1, text: 'succeeded' }];
    const sink = recordingSink();
    followChange(changeDevice(record('succeeded', messages as ChangeRecord['messages'])), 7, sink);
    await sink.closed;
    expect(sink.sent).toEqual([
      { time: 1795262400, message: 'queued' },
      { time: NOW / 1000, message: 'running' },
      { time: 1795262401.5, message: 'succeeded' },
    ]);
  });

  it('closes with 1000 saying so when the change is no longer on record (a factory reset)', async () => {
    const device = changeDevice(record('running', [{ time: T0, text: 'queued' }]));
    const sink = recordingSink();
    const steps = steppedPause();
    followChange(device, 7, sink, { pause: steps.pause });
    await steps.paused();
    device.current = null;
    steps.resume();
    expect(await sink.closed).toEqual({ code: 1000, reason: 'change 7 is no longer on record' });
    expect(sink.sent).toHaveLength(1);
  });

  it('closes with 1011 when the change cannot be read, and logs why', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const sink = recordingSink();
    const device = { change: async () => Promise.reject(new Error('EIO: the disk is gone')), now: () => NOW };
    followChange(device, 7, sink);
    expect(await sink.closed).toEqual({ code: 1011, reason: 'change 7 could not be read' });
    expect(String(logged.mock.calls[0]?.[1])).toContain('EIO');
    expect(sink.sent).toEqual([]);
  });

  it('stop() while it waits ends the stream: no more reads, nothing sent, no close of its own', async () => {
    const device = changeDevice(record('running', [{ time: T0, text: 'queued' }]));
    const sink = recordingSink();
    const steps = steppedPause();
    const close = vi.spyOn(sink, 'close');
    const stream = followChange(device, 7, sink, { pause: steps.pause });
    await steps.paused();
    const reads = device.reads;
    await stream.stop();
    device.current = record('succeeded', [
      { time: T0, text: 'queued' },
      { time: T1, text: 'succeeded' },
    ]);
    expect(device.reads).toBe(reads);
    expect(sink.sent).toHaveLength(1);
    expect(close).not.toHaveBeenCalled();
  });

  it('stop() while a read is under way resolves once it is done, and sends nothing it read', async () => {
    let answer!: (change: ChangeRecord) => void;
    const device = { change: () => new Promise<ChangeRecord>((resolve) => (answer = resolve)), now: () => NOW };
    const sink = recordingSink();
    const close = vi.spyOn(sink, 'close');
    const stream = followChange(device, 7, sink);
    let stopped = false;
    const stopping = stream.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    answer(record('succeeded', [{ time: T0, text: 'queued' }]));
    await stopping;
    expect(sink.sent).toEqual([]);
    expect(close).not.toHaveBeenCalled();
  });
});

describe('streamMessage', () => {
  it("turns a change record's message into ParaDrop's {time, message}, time in seconds with milliseconds as a fraction", () => {
    expect(streamMessage({ time: T1, text: 'running' }, NOW)).toEqual({ time: 1795262401.5, message: 'running' });
  });
});
