import { describe, expect, it } from 'vitest';
import { faultedBody, faultedStream, type Drop, type StreamEffect } from './streams.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** An SSE source as the events stream sends one: `retry:`, then an event every 10 ms with a heartbeat between each two. */
function eventSource(): { body: ReadableStream<Uint8Array>; canceled: Promise<void> } {
  let timer: ReturnType<typeof setInterval> | undefined;
  let canceled!: () => void;
  const done = new Promise<void>((resolve) => (canceled = resolve));
  let n = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('retry: 3000\n\n'));
      timer = setInterval(() => {
        n++;
        controller.enqueue(encoder.encode(n % 2 === 0 ? ': keep-alive\n\n' : `id: ${n}\nevent: e\ndata: {}\n\n`));
      }, 5);
    },
    cancel() {
      clearInterval(timer);
      canceled();
    },
  });
  return { body, canceled: done };
}

/** What a reader of the stream gets within `ms`: the chunks as text, and how the stream ended (or 'open'). */
async function readFor(stream: ReadableStream<Uint8Array>, ms: number): Promise<{ chunks: string[]; end: 'closed' | 'failed' | 'open' }> {
  const reader = stream.getReader();
  const chunks: string[] = [];
  const deadline = new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), ms));
  for (;;) {
    const next = await Promise.race([
      reader.read().then(
        (chunk) => chunk,
        () => 'failed' as const,
      ),
      deadline,
    ]);
    if (next === 'open' || next === 'failed') {
      void reader.cancel().catch(() => undefined);
      return { chunks, end: next };
    }
    if (next.done) return { chunks, end: 'closed' };
    chunks.push(decoder.decode(next.value));
  }
}

const failing: Drop = (controller) => controller.error(new TypeError('dropped'));
const stream = (effect: Omit<StreamEffect, 'kind'>): StreamEffect => ({ kind: 'stream', ...effect });
const events = (chunks: string[]) => chunks.filter((chunk) => chunk.startsWith('id:')).length;

describe('a stream fault on the events stream', () => {
  it('close ends the stream cleanly after the messages asked, and stops the source', async () => {
    const source = eventSource();
    const read = await readFor(faultedStream(source.body, stream({ stream: 'close', afterMessages: 2 }), failing), 300);
    expect(read.end).toBe('closed');
    expect(events(read.chunks)).toBe(2);
    expect(read.chunks[0]).toBe('retry: 3000\n\n');
    await source.canceled;
  });

  it('drop breaks the connection after the messages asked', async () => {
    const source = eventSource();
    const read = await readFor(faultedStream(source.body, stream({ stream: 'drop', afterMessages: 3 }), failing), 300);
    expect(read).toMatchObject({ end: 'failed' });
    expect(events(read.chunks)).toBe(3);
    await source.canceled;
  });

  it('stall-heartbeat sends nothing more, heartbeats included, while the stream stays open', async () => {
    const source = eventSource();
    const read = await readFor(faultedStream(source.body, stream({ stream: 'stall-heartbeat', afterMessages: 1 }), failing), 200);
    expect(read.end).toBe('open');
    expect(read.chunks.at(-1)).toMatch(/^id: /);
    expect(events(read.chunks)).toBe(1);
    await source.canceled;
  });

  it('afterMs stops it after that time, whatever it sent', async () => {
    const source = eventSource();
    const started = performance.now();
    const read = await readFor(faultedStream(source.body, stream({ stream: 'close', afterMs: 100 }), failing), 1000);
    expect(read.end).toBe('closed');
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(events(read.chunks)).toBeGreaterThan(2);
  });
});

describe('a body fault', () => {
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const text = JSON.stringify({ text: 'x'.repeat(98) });
  const answer = () => new Response(text, { headers: { 'content-type': 'application/json' } });

  it('slow-body sends the whole body in its pieces over its duration, with its length', async () => {
    const started = performance.now();
    const slow = await faultedBody(answer(), { kind: 'fault', fault: 'slow-body', durationMs: 300, chunks: 5 }, sleep, failing);
    expect(slow.headers.get('content-length')).toBe(String(text.length));
    const read = await readFor(slow.body!, 2000);
    expect(read).toMatchObject({ end: 'closed' });
    expect(read.chunks).toHaveLength(5);
    expect(read.chunks.join('')).toBe(text);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('truncated-body sends half the body under the whole length, then breaks', async () => {
    const cut = await faultedBody(answer(), { kind: 'fault', fault: 'truncated-body', durationMs: 0, chunks: 1 }, sleep, failing);
    expect(cut.headers.get('content-length')).toBe(String(text.length));
    expect(await readFor(cut.body!, 1000)).toEqual({ chunks: [text.slice(0, text.length >> 1)], end: 'failed' });
  });
});
