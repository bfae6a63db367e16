import { describe, expect, it, vi } from 'vitest';
import type { ChuteLogEntry, LogEntry, LogOptions } from '../../functions/core/device/index.ts';
import { HttpProblem } from '../../functions/core/problem.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { followChuteLog, PARADROP_LOG_TAIL } from './chute-log-socket.ts';

const line = (n: number): LogEntry => ({
  time: `2026-11-21T11:${String(Math.floor(n / 60)).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.5Z`,
  stream: 'stdout',
  message: `line ${n}`,
});

/** A sink that keeps what is sent, and resolves `closed` with how the websocket was closed. */
function sink() {
  const sent: string[] = [];
  let close!: (how: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (close = resolve));
  return { sent, closed, send: async (text: string) => void sent.push(text), close: (code: number, reason: string) => close({ code, reason }) };
}

describe('a chute log websocket', () => {
  it("sends the last lines as ParaDrop's LogProvider does, then closes with 1000 when the log ends", async () => {
    const lines = Array.from({ length: PARADROP_LOG_TAIL + 5 }, (_, n) => line(n));
    const device = memoryDevice({ now: Date.parse('2026-11-21T12:00:00Z'), logs: { lab: lines } });
    const asked = vi.spyOn(device, 'chuteLogs');
    const socket = sink();
    followChuteLog(device, 'lab', socket);
    expect(await socket.closed).toEqual({ code: 1000, reason: 'the log of chute lab ended: the chute does not run' });
    expect(asked).toHaveBeenCalledWith('lab', { follow: true, since: null, until: null, tail: PARADROP_LOG_TAIL } satisfies LogOptions);
    expect(socket.sent).toHaveLength(PARADROP_LOG_TAIL);
    expect(JSON.parse(socket.sent[0]!)).toEqual({ service: 'main', timestamp: '2026-11-21T11:00:05.5Z', message: 'line 5' });
  });

  it('closes with 1011 when the log cannot be read, and logs why', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const device = { chuteLogs: () => Promise.reject(new HttpProblem(503, 'no container engine is reachable')) };
    const socket = sink();
    followChuteLog(device, 'lab', socket);
    expect(await socket.closed).toEqual({ code: 1011, reason: 'the log of chute lab cannot be read' });
    expect(String(errors.mock.calls[0]?.[1])).toContain('no container engine is reachable');
    errors.mockRestore();
  });

  it('stops reading when the websocket closes, and closes nothing itself then', async () => {
    let cancelled = false;
    const endless = new ReadableStream<ChuteLogEntry>({
      start: (controller) => controller.enqueue({ ...line(1), service: 'main' }),
      cancel: () => void (cancelled = true),
    });
    const socket = sink();
    const following = followChuteLog({ chuteLogs: async () => endless }, 'lab', socket);
    await vi.waitFor(() => expect(socket.sent).toHaveLength(1));
    await following.stop();
    expect(cancelled).toBe(true);
    const closed = await Promise.race([socket.closed, new Promise((resolve) => setTimeout(() => resolve('open'), 50))]);
    expect(closed).toBe('open');
  });
});
