import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { eventsOf } from '../../test/support/event-stream-client.ts';
import { memoryDevice, type MemoryDevice } from '../../test/support/memory-device.ts';
import { corsPolicy } from './cors.ts';
import { eventStream, MAX_QUEUED_BYTES, RETRY_MS, type EventStreams } from './event-stream.ts';

/*
 * The events stream in this process, on a memory device: what a stream sends and when, without a
 * server (the same over HTTP is in test/events.test.ts).
 */

/** An app that serves `eventStream` on a memory device, and what it keeps. */
function served(options: Partial<EventStreams> = {}) {
  const device: MemoryDevice = memoryDevice();
  const streams: EventStreams = { device, open: new Set(), cors: corsPolicy('*'), ...options };
  const app = new Hono().get('/api/v1/events', (c) => eventStream(c, streams));
  const open = async (headers: Record<string, string> = {}, query = '') => eventsOf(await app.request(`/api/v1/events${query}`, { headers }));
  return { device, streams, app, open };
}

/** A host configuration applied, the smallest event. */
const applied = { kind: 'hostconfig.applied', success: true } as const;

describe('eventStream', () => {
  it('sends retry first, then each event with its id, its kind as the event name and itself as JSON data', async () => {
    const { device, app } = served();
    const res = await app.request('/api/v1/events');
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const reader = res.body!.getReader();
    device.publishEvent(applied);
    device.publishEvent({ kind: 'station.disconnected', chute: 'hotspot', network: 'guest', mac: '02:00:00:00:00:01' });
    let text = '';
    while (!text.includes('station.disconnected","chute"')) text += new TextDecoder().decode((await reader.read()).value);
    const time = new Date(device.now()).toISOString();
    expect(text).toBe(
      `retry: ${RETRY_MS}\n\n` +
        `id: 1\nevent: hostconfig.applied\ndata: {"kind":"hostconfig.applied","success":true,"id":1,"time":"${time}"}\n\n` +
        `id: 2\nevent: station.disconnected\ndata: {"kind":"station.disconnected","chute":"hotspot","network":"guest","mac":"02:00:00:00:00:01","id":2,"time":"${time}"}\n\n`,
    );
    await reader.cancel();
  });

  it('sends a comment every heartbeat, so that a proxy keeps an idle stream open', async () => {
    const { open } = served({ heartbeatMs: 20 });
    const stream = await open();
    while (stream.comments.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stream.comments.slice(0, 2)).toEqual(['keep-alive', 'keep-alive']);
    expect(stream.retry).toBe(RETRY_MS);
    stream.close();
  });

  it('stops following the device once the client goes: the stream is no longer open', async () => {
    const { device, streams, open } = served();
    const stream = await open();
    expect(streams.open.size).toBe(1);
    stream.close();
    await stream.ended;
    expect(streams.open.size).toBe(0);
    device.publishEvent(applied);
    expect(stream.events).toEqual([]);
  });

  it('answers a HEAD with the headers alone, and opens no stream', async () => {
    const { streams, app } = served();
    const res = await app.request('/api/v1/events', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(streams.open.size).toBe(0);
  });

  it('ends every open stream when the server stops', async () => {
    const { streams, open } = served();
    const [a, b] = [await open(), await open()];
    for (const end of streams.open) end();
    expect(await Promise.all([a.ended, b.ended])).toEqual(['end', 'end']);
    expect(streams.open.size).toBe(0);
  });

  it('drops a client that takes nothing once more than the bound waits for it, while another client gets every event', async () => {
    const { device, streams, app, open } = served();
    const reading = await open();
    const stalled = (await app.request('/api/v1/events')).body!.getReader();
    // About 1 KiB an event, a few at a time as a device publishes them: the bound is passed within a few hundred.
    const count = Math.ceil((2 * MAX_QUEUED_BYTES) / 1024);
    for (let i = 1; i <= count; i++) {
      device.publishEvent({ kind: 'controller.delivery', what: 'telemetry', success: false, error: 'x'.repeat(1000) });
      if (i % 8 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await expect(
      stalled.read().then(async function drain(): Promise<unknown> {
        return stalled.read().then(drain);
      }),
    ).rejects.toThrow('the client fell too far behind the events and was dropped');
    expect((await reading.atLeast(count)).map((event) => Number(event.id))).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect(streams.open.size).toBe(1);
    reading.close();
  });

  it("does not count a reconnect's backlog against the bound: the client that resumes gets all of it, and what follows", async () => {
    const { device, app } = served();
    const count = Math.ceil((2 * MAX_QUEUED_BYTES) / 1024);
    for (let i = 0; i < count; i++) device.publishEvent({ kind: 'controller.delivery', what: 'telemetry', success: false, error: 'x'.repeat(1000) });
    const res = await app.request('/api/v1/events', { headers: { 'last-event-id': '0' } });
    // A new event while the whole backlog still waits for the client.
    device.publishEvent(applied);
    const resumed = eventsOf(res);
    expect((await resumed.atLeast(count + 1)).map((event) => Number(event.id))).toEqual(Array.from({ length: count + 1 }, (_, i) => i + 1));
    resumed.close();
  });

  it('sends events.missed with the id it resumes after, before the events it still keeps, whatever the filters', async () => {
    const { device, open } = served();
    for (let i = 0; i < 3; i++) device.publishEvent(applied);
    const stream = await open({ 'last-event-id': '7' }, '?kind=chute.state');
    device.publishEvent({ kind: 'chute.state', chute: 'hotspot', state: 'stopped', previous: 'running' });
    const events = await stream.atLeast(2);
    expect(events.map((event) => [event.id, event.event])).toEqual([
      ['0', 'events.missed'],
      ['4', 'chute.state'],
    ]);
    expect(events[0]!.data).toEqual({ kind: 'events.missed', after: 7, id: 0, time: new Date(device.now()).toISOString() });
    stream.close();
  });
});
