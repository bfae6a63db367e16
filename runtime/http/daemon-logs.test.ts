import net from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { LogRing, MAX_LOG_FOLLOWERS, MAX_UNREAD_BYTES } from '../log/ring.ts';
import { apiApp } from './api.ts';
import { listen, type Listening } from './listen.ts';

/** Adds `message` to `ring`, written now. */
function add(ring: LogRing, message: string): void {
  const ms = Date.now();
  ring.add(new Date(ms).toISOString(), ms, message);
}

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The app with nothing but the daemon's log, serving `ring`, listening on loopback. */
async function serving(ring: LogRing): Promise<string> {
  server = await listen(apiApp([], { device: memoryDevice(), auth: null, logs: ring }), { host: '127.0.0.1', port: 0 });
  return server.url;
}

/** The text of an answer that is still open, read until `done` says it has what it waits for. */
async function readUntil(body: ReadableStream<Uint8Array>, done: (text: string) => boolean): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!done(text)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}

describe('GET /api/v1/logs?follow=true', () => {
  it('sends the lines asked for, then each new line, and ends when the log ends (the server stops)', async () => {
    const ring = new LogRing(64 * 1024);
    add(ring, 'before');
    const res = await fetch(`${await serving(ring)}/api/v1/logs?follow=true&timestamps=false`);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    add(ring, 'after');
    const body = res.body!;
    expect(await readUntil(body, (text) => text.includes('after'))).toBe('{"stream":"stdout","message":"before"}\n{"stream":"stdout","message":"after"}\n');
    ring.end();
    expect(await readUntil(body, () => false)).toBe('');
    expect(ring.followers).toBe(0);
  });

  it('ends at until', async () => {
    const ring = new LogRing(64 * 1024);
    const until = (Date.now() + 300) / 1000;
    const res = await fetch(`${await serving(ring)}/api/v1/logs?follow=1&until=${until}`);
    const started = Date.now();
    expect(await res.text()).toBe('');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(ring.followers).toBe(0);
  });

  it('stops following when the client goes', async () => {
    const ring = new LogRing(64 * 1024);
    const aborted = new AbortController();
    const res = await fetch(`${await serving(ring)}/api/v1/logs?follow=true`, { signal: aborted.signal });
    expect(ring.followers).toBe(1);
    aborted.abort();
    await res.body?.cancel().catch(() => undefined);
    const deadline = Date.now() + 5000;
    while (ring.followers > 0 && Date.now() < deadline) {
      add(ring, 'anyone there?');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(ring.followers).toBe(0);
  });

  it(`drops a client that leaves more than ${MAX_UNREAD_BYTES} bytes unread, rather than hold lines for it without end`, async () => {
    const ring = new LogRing(64 * 1024);
    const { port } = new URL(await serving(ring));
    // A client that asks and never reads.
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.write('GET /api/v1/logs?follow=true HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    socket.pause();
    const deadline = Date.now() + 20_000;
    while (ring.followers === 0 && Date.now() < deadline) await nextTurn();
    expect(ring.followers).toBe(1);
    const text = 'x'.repeat(4096);
    let added = 0;
    while (ring.followers > 0 && Date.now() < deadline) {
      add(ring, text);
      added += text.length;
      if (added % (64 * 4096) === 0) await nextTurn();
    }
    expect(ring.followers).toBe(0);
    socket.destroy();
  });

  it(`answers 503 when ${MAX_LOG_FOLLOWERS} clients follow already, and still answers without follow`, async () => {
    const ring = new LogRing(64 * 1024);
    for (let i = 0; i < MAX_LOG_FOLLOWERS; i++)
      ring.follow(
        () => undefined,
        () => undefined,
      );
    const url = await serving(ring);
    const refused = await fetch(`${url}/api/v1/logs?follow=true`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect((await fetch(`${url}/api/v1/logs`)).status).toBe(200);
  });
});
