import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DaemonLog, startDaemonLog } from './daemon-log.ts';
import { FLUSH_MS } from './line-writer.ts';
import { daemonLog, setLogSink } from './log.ts';

/** A daemon log of `level` writing to a stream that keeps every line, decoded. */
function recordedLog(level: 'error' | 'warn' | 'info' | 'debug', bytes = 64 * 1024) {
  const written: Record<string, unknown>[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) written.push(JSON.parse(line));
      done();
    },
  });
  return { log: new DaemonLog({ level, bytes, out }), written };
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const GET_FEATURES = { method: 'GET', route: '/api/v1/info/features', status: 200, seconds: 0.001234567, user: 'paradrop' };

afterEach(() => setLogSink(undefined));

/** Waits until the log wrote what it holds. */
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, FLUSH_MS + 50));

describe('the daemon log', () => {
  it('writes one JSON line a request at debug: the time, the method, the route as mounted, the status, the seconds and the user', async () => {
    const { log, written } = recordedLog('debug');
    log.requests!(GET_FEATURES);
    log.requests!({ method: 'DELETE', route: null, status: 404, seconds: 0.0001, user: null });
    await nextTurn();
    expect(written).toEqual([
      { time: expect.stringMatching(ISO_TIME), level: 'debug', msg: 'request', ...GET_FEATURES, seconds: 0.001235 },
      { time: expect.stringMatching(ISO_TIME), level: 'debug', msg: 'request', method: 'DELETE', route: null, status: 404, seconds: 0.0001, user: null },
    ]);
  });

  it('writes the lines of its level and the more severe ones only, and takes no request lines above debug', async () => {
    const { log, written } = recordedLog('warn');
    for (const level of ['error', 'warn', 'info', 'debug'] as const) log.write(level, `a line at ${level}`);
    await nextTurn();
    expect(written.map((line) => [line.level, line.msg])).toEqual([
      ['error', 'a line at error'],
      ['warn', 'a line at warn'],
    ]);
    expect(log.requests).toBeUndefined();
    expect(recordedLog('info').log.requests).toBeUndefined();
  });

  it('writes an event’s fields after its message, an error as its stack', async () => {
    const { log, written } = recordedLog('info');
    log.write('error', 'repairing the chutes at start failed', { chute: 'hello', error: new Error('the engine is gone') });
    await nextTurn();
    expect(written).toEqual([
      {
        time: expect.stringMatching(ISO_TIME),
        level: 'error',
        msg: 'repairing the chutes at start failed',
        chute: 'hello',
        error: expect.stringMatching(/^Error: the engine is gone\n {4}at /),
      },
    ]);
  });

  it('keeps what it writes in its ring, each line as written to standard output', async () => {
    const { log, written } = recordedLog('info');
    for (const msg of ['one', 'two', 'three']) log.write('info', msg);
    await nextTurn();
    const ring = log.ring.lines();
    expect(ring.map((entry) => JSON.parse(entry.message).msg)).toEqual(['one', 'two', 'three']);
    expect(ring.map((entry) => entry.message)).toEqual(written.map((line) => JSON.stringify(line)));
    expect(ring[1]).toEqual({ stream: 'stdout', time: written[1]!.time, ms: Date.parse(written[1]!.time as string), message: JSON.stringify(written[1]) });
  });

  it('is where daemonLog writes once installed; before that, daemonLog writes to standard error', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    daemonLog.warn('no log yet');
    expect(errors).toHaveBeenCalledWith('no log yet');
    errors.mockRestore();

    const { log, written } = recordedLog('info');
    log.install();
    daemonLog.info('chute hello: running → missing', { chute: 'hello' });
    daemonLog.debug('below the level');
    await nextTurn();
    expect(written).toEqual([{ time: expect.stringMatching(ISO_TIME), level: 'info', msg: 'chute hello: running → missing', chute: 'hello' }]);
  });

  it('refuses a level it does not know, and a buffer size out of range, naming the flag', () => {
    expect(() => startDaemonLog({ 'log-level': 'verbose', 'log-buffer': '256' })).toThrow(
      expect.objectContaining({ exitCode: 2, message: '--log-level must be one of error, warn, info, debug, not "verbose"' }),
    );
    for (const size of ['63', '65537', '1.5', 'lots']) {
      expect(() => startDaemonLog({ 'log-level': 'info', 'log-buffer': size })).toThrow(
        expect.objectContaining({ exitCode: 2, message: `--log-buffer must be a whole number of KiB from 64 to 65536, not "${size}"` }),
      );
    }
  });
});
