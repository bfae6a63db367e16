import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProvisionCredentials } from '../../functions/core/device/index.ts';
import { handle as telemetryHandle } from '../../functions/info/telemetry.get.ts';
import { chuteEngine } from '../../test/support/info-devices.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { CONTROLLER } from '../../test/support/controller.ts';
import { controllerClient } from './client.ts';
import { telemetryReport, telemetrySender, type TelemetrySender, type TelemetrySenderOptions } from './telemetry.ts';

const CREDENTIALS: ProvisionCredentials = { routerId: 'r1', apitoken: 't0k3n', pdserver: CONTROLLER, wampRouter: 'ws://controller.test:9086/ws' };
const TELEMETRY_URL = `${CONTROLLER}/api/routers/r1/telemetry`;
const START = Date.UTC(2026, 10, 21, 12, 0, 0);

/** How the mocked controller answers the next delivery. */
type Mode = 'up' | 'down-503' | 'network-error' | 'hang';

const server = setupServer();
let mode: Mode;
/** The reports the controller accepted, decoded, in order. */
let delivered: unknown[];
/** Every delivery attempt that reached the controller. */
let attempts: number;

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
beforeEach(() => {
  mode = 'up';
  delivered = [];
  attempts = 0;
  server.use(
    http.post(TELEMETRY_URL, async ({ request }) => {
      attempts += 1;
      if (mode === 'down-503') return HttpResponse.json({ error: 'maintenance' }, { status: 503 });
      if (mode === 'network-error') return HttpResponse.error();
      if (mode === 'hang') await new Promise(() => {});
      delivered.push(await request.json());
      return HttpResponse.json({});
    }),
  );
  vi.useFakeTimers({ now: START });
});
afterEach(() => {
  vi.useRealTimers();
  server.resetHandlers();
});
afterAll(() => server.close());

/** A sender whose reports are numbered `{ n: 1 }`, `{ n: 2 }`, … and go to the mocked controller. */
function numberedSender(options: Partial<TelemetrySenderOptions> = {}): { sender: TelemetrySender; made: () => number } {
  let n = 0;
  const client = controllerClient();
  const sender = telemetrySender({
    report: async () => ({ n: ++n }),
    deliver: (report, signal) => client.sendReport(CREDENTIALS, report, signal),
    ...options,
  });
  return { sender, made: () => n };
}

const seconds = (s: number) => vi.advanceTimersByTimeAsync(s * 1000);

describe('telemetry to the controller', () => {
  it('delivers one report per interval, the first one interval after the start', async () => {
    const { sender } = numberedSender();
    sender.start(60);
    await seconds(59.999);
    expect(delivered).toEqual([]);
    await seconds(0.001);
    expect(delivered).toEqual([{ n: 1 }]);
    await seconds(60);
    expect(delivered).toEqual([{ n: 1 }, { n: 2 }]);
    expect(sender.status()).toEqual({ lastSuccess: '2026-11-21T12:02:00.000Z', lastError: null, queued: 0, dropped: 0, delivered: 2, failed: 0 });
    sender.stop();
  });

  it('delivers the report GET /api/v1/info/telemetry serves, made by that endpoint', async () => {
    const device = memoryDevice(chuteEngine);
    const client = controllerClient();
    const sender = telemetrySender({ report: () => telemetryReport(device), deliver: (report, signal) => client.sendReport(CREDENTIALS, report, signal) });
    sender.start(30);
    await seconds(30);
    const served = await telemetryHandle({ params: {}, query: {}, headers: {}, body: undefined, text: '' }, device);
    expect(delivered).toEqual([JSON.parse(JSON.stringify(served))]);
    sender.stop();
  });

  it('retries a report the controller refuses (503) after 5, 10 and 20 s without making new ones, then delivers it', async () => {
    const { sender, made } = numberedSender();
    sender.start(60);
    mode = 'down-503';
    await seconds(60);
    expect(sender.status()).toEqual({
      lastSuccess: null,
      lastError: {
        time: '2026-11-21T12:01:00.000Z',
        message: `the controller at ${CONTROLLER} answered POST /api/routers/r1/telemetry with 503 Service Unavailable`,
      },
      queued: 1,
      dropped: 0,
      delivered: 0,
      failed: 1,
    });
    await seconds(4.999);
    expect(attempts).toBe(1);
    await seconds(0.001);
    expect(attempts).toBe(2);
    await seconds(10);
    expect(attempts).toBe(3);
    mode = 'up';
    await seconds(19.999);
    expect(delivered).toEqual([]);
    await seconds(0.001);
    expect(delivered).toEqual([{ n: 1 }]);
    expect(made()).toBe(1);
    // Three attempts failed (at 60, 65 and 75 s), then one delivered the report.
    expect(sender.status()).toEqual({ lastSuccess: '2026-11-21T12:01:35.000Z', lastError: null, queued: 0, dropped: 0, delivered: 1, failed: 3 });
    sender.stop();
  });

  it('keeps the reports made during a network outage and delivers them oldest first when it ends', async () => {
    const { sender } = numberedSender();
    sender.start(60);
    mode = 'network-error';
    await seconds(180); // reports at 60, 120 and 180 s; retries at 65, 75, 95 and 135 s (waits capped at the interval)
    expect(delivered).toEqual([]);
    expect(sender.status()).toMatchObject({
      queued: 3,
      dropped: 0,
      lastError: { message: `the controller at ${CONTROLLER} could not be reached: Failed to fetch` },
    });
    mode = 'up';
    await seconds(15); // the retry after 60 s, at 195 s
    expect(delivered).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(sender.status()).toMatchObject({ queued: 0, lastError: null });
    await seconds(45);
    expect(delivered).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    sender.stop();
  });

  it('drops the oldest report when the queue is full and counts it', async () => {
    const { sender } = numberedSender({ queueSize: 2 });
    sender.start(10);
    mode = 'down-503';
    await seconds(40); // four reports; waits capped at the 10 s interval
    expect(sender.status()).toMatchObject({ queued: 2, dropped: 2 });
    mode = 'up';
    await seconds(10); // the retry at 45 s delivers both, the report of 50 s follows
    expect(delivered).toEqual([{ n: 3 }, { n: 4 }, { n: 5 }]);
    expect(sender.status()).toMatchObject({ queued: 0, dropped: 2 });
    sender.stop();
  });

  it('records a report that cannot be made as the last error, and sends nothing for it', async () => {
    const sender = telemetrySender({
      report: async () => {
        throw new Error('/proc is not mounted');
      },
      deliver: () => Promise.reject(new Error('nothing to deliver')),
    });
    sender.start(60);
    await seconds(60);
    expect(attempts).toBe(0);
    expect(sender.status()).toEqual({
      lastSuccess: null,
      lastError: { time: '2026-11-21T12:01:00.000Z', message: 'the report could not be made: /proc is not mounted' },
      queued: 0,
      dropped: 0,
      delivered: 0,
      failed: 0,
    });
    sender.stop();
  });

  it('stops at once: no timer left, the delivery in flight aborted and not counted, the queue emptied', async () => {
    const { sender } = numberedSender();
    sender.start(60);
    mode = 'hang';
    await seconds(60);
    expect(attempts).toBe(1);
    expect(sender.status().queued).toBe(1);
    sender.stop();
    await seconds(0); // the aborted request settles
    expect(vi.getTimerCount()).toBe(0);
    expect(sender.running()).toBe(false);
    await seconds(3600);
    expect(attempts).toBe(1);
    expect(sender.status()).toEqual({ lastSuccess: null, lastError: null, queued: 0, dropped: 0, delivered: 0, failed: 0 });
  });

  it('keeps its schedule when started again with the same interval, and restarts it with another', async () => {
    const { sender } = numberedSender();
    sender.start(60);
    await seconds(50);
    sender.start(60);
    await seconds(10);
    expect(delivered).toHaveLength(1);
    sender.start(30);
    await seconds(29);
    expect(delivered).toHaveLength(1);
    await seconds(1);
    expect(delivered).toHaveLength(2);
    sender.stop();
  });
  it('sends one report at once when asked, counted as a scheduled one, and keeps the schedule', async () => {
    const { sender } = numberedSender();
    sender.start(60);
    await seconds(30);
    expect(await sender.sendNow()).toBe(true);
    expect(delivered).toEqual([{ n: 1 }]);
    expect(sender.status()).toEqual({ lastSuccess: '2026-11-21T12:00:30.000Z', lastError: null, queued: 0, dropped: 0, delivered: 1, failed: 0 });
    await seconds(30);
    expect(delivered).toEqual([{ n: 1 }, { n: 2 }]);
    sender.stop();
  });

  it('answers false when a report sent at once is refused, and delivers the queue on the next one without waiting for the retry', async () => {
    const { sender } = numberedSender();
    sender.start(60);
    mode = 'down-503';
    expect(await sender.sendNow()).toBe(false);
    expect(sender.status()).toMatchObject({ queued: 1, delivered: 0, failed: 1, lastError: { time: '2026-11-21T12:00:00.000Z' } });
    mode = 'up';
    await seconds(1);
    expect(await sender.sendNow()).toBe(true);
    expect(delivered).toEqual([{ n: 1 }, { n: 2 }]);
    // The retry that was waiting is gone: nothing is sent again at 5 s.
    await seconds(10);
    expect(attempts).toBe(3);
    expect(sender.status()).toMatchObject({ queued: 0, delivered: 2, failed: 1, lastError: null });
    sender.stop();
  });

  it('goes on from the counts it starts with, as a restored device does', async () => {
    const counts = {
      lastSuccess: '2026-11-21T11:58:00.000Z',
      lastError: { time: '2026-11-21T11:59:00.000Z', message: 'the controller at https://controller.test could not be reached: Failed to fetch' },
      dropped: 1,
      delivered: 7,
      failed: 2,
    };
    const { sender } = numberedSender({ counts });
    expect(sender.status()).toEqual({ ...counts, queued: 0 });
    expect(await sender.sendNow()).toBe(true);
    expect(sender.status()).toEqual({ lastSuccess: '2026-11-21T12:00:00.000Z', lastError: null, queued: 0, dropped: 1, delivered: 8, failed: 2 });
    sender.reset();
    expect(sender.status()).toEqual({ lastSuccess: null, lastError: null, queued: 0, dropped: 0, delivered: 0, failed: 0 });
  });
});
