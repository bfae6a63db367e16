import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { nanoTime, readEntries } from '../../functions/core/logs.ts';
import { CHUTE_LABEL, type LogEntry, type LogOptions } from '../../functions/core/device/index.ts';
import { loadScenario } from './device.ts';
import { FOLLOW_CHECK_MS, movedTime, recordedLogs, scenarioLogs } from './logs.ts';

const AT = (time: string) => `2025-11-21T${time}Z`;
const entry = (time: string, stream: LogEntry['stream'], message: string): LogEntry => ({ time: AT(time), stream, message });

/** A chute's recorded lines: three before the clock's start (10:00:00), two after. */
const RECORDED = [
  entry('09:59:00', 'stdout', 'one'),
  entry('09:59:30', 'stderr', 'two'),
  entry('09:59:59.5', 'stdout', 'three'),
  entry('10:00:05', 'stdout', 'four'),
  entry('10:00:20.25', 'stderr', 'five'),
];

/** The recorded lines as served: a chute stored without services has one, `main`. */
const SERVED = RECORDED.map((line) => ({ ...line, service: 'main' }));

const ALL: LogOptions = { follow: false, since: null, until: null, tail: null };

/**
 * Recorded logs of chute `lab` on a device whose clock starts at 10:00:00 and moves only when a
 * follower pauses (by as long as it asks, one event-loop turn later); `stop()` exits its container.
 */
function replayed() {
  const clock = { now: Date.parse(AT('10:00:00')) };
  let state = 'running';
  const pauses: number[] = [];
  const logs = recordedLogs({
    read: async (chute) => (chute === 'lab' ? RECORDED : []),
    device: {
      now: () => clock.now,
      containers: async () => [{ Labels: { [CHUTE_LABEL]: 'lab' }, State: state, Status: state === 'running' ? 'Up 2 days' : 'Exited (0) 1 second ago' }],
      chute: async (name) => (name === 'lab' ? { name, record: { state: 'running' }, config: {}, cache: {} } : null),
    },
    pause: async (ms) => {
      pauses.push(ms);
      await turn();
      clock.now += ms;
    },
  });
  return { logs, clock, pauses, stop: () => void (state = 'exited') };
}

const messages = (entries: LogEntry[]) => entries.map((line) => line.message);

describe('a chute log replayed from its recording', () => {
  it('answers the lines whose time has come, oldest first, and none of a chute without a recording', async () => {
    const { logs } = replayed();
    expect(await readEntries(await logs.chuteLogs('lab', ALL))).toEqual(SERVED.slice(0, 3));
    expect(await readEntries(await logs.chuteLogs('other', ALL))).toEqual([]);
  });

  it("labels each line with the service the recording names, a line without one with the chute's main service", async () => {
    const logs = recordedLogs({
      read: async () => [
        { ...entry('09:59:00', 'stdout', 'web up'), service: 'web' },
        { ...entry('09:59:01', 'stdout', 'db up'), service: 'db' },
        entry('09:59:02', 'stdout', 'unnamed'),
      ],
      device: {
        now: () => Date.parse(AT('10:00:00')),
        containers: async () => [],
        chute: async (name) => ({ name, record: { state: 'running', main_service: 'web', services: { web: {}, db: {} } }, config: {}, cache: {} }),
      },
    });
    const lines = await readEntries(await logs.chuteLogs('pair', ALL));
    expect(lines.map(({ service, message }) => `${service}: ${message}`)).toEqual(['web: web up', 'db: db up', 'web: unnamed']);
  });

  it('takes the last tail lines of the log so far, then keeps those from since to until, both included', async () => {
    const { logs } = replayed();
    const read = async (options: Partial<LogOptions>) => messages(await readEntries(await logs.chuteLogs('lab', { ...ALL, ...options })));
    expect(await read({ tail: 2 })).toEqual(['two', 'three']);
    expect(await read({ tail: 0 })).toEqual([]);
    expect(await read({ since: nanoTime(AT('09:59:30')) })).toEqual(['two', 'three']);
    expect(await read({ until: nanoTime(AT('09:59:30')) })).toEqual(['one', 'two']);
    expect(await read({ since: nanoTime(AT('09:59:30.000000001')), until: nanoTime(AT('09:59:59.5')) })).toEqual(['three']);
    // As the engine counts: the tail first, then the range.
    expect(await read({ tail: 1, until: nanoTime(AT('09:59:30')) })).toEqual([]);
  });

  it('with follow, sends each later line when its time comes, until the chute stops', async () => {
    const { logs, clock, pauses, stop } = replayed();
    const reader = (await logs.chuteLogs('lab', { ...ALL, follow: true, tail: 1 })).getReader();
    expect((await reader.read()).value).toEqual(SERVED[2]);
    expect((await reader.read()).value).toEqual(SERVED[3]);
    expect(clock.now).toBe(Date.parse(AT('10:00:05')));
    expect((await reader.read()).value).toEqual(SERVED[4]);
    expect(clock.now).toBe(Date.parse(AT('10:00:20.25')));
    // Never longer than FOLLOW_CHECK_MS between looks at whether the chute still runs.
    expect(Math.max(...pauses)).toBe(FOLLOW_CHECK_MS);
    stop();
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  it('with follow and until, ends once until has passed', async () => {
    const { logs, clock } = replayed();
    const lines = await readEntries(await logs.chuteLogs('lab', { ...ALL, follow: true, until: nanoTime(AT('10:00:10')) }));
    expect(messages(lines)).toEqual(['one', 'two', 'three', 'four']);
    expect(clock.now).toBeGreaterThan(Date.parse(AT('10:00:10')));
    expect(clock.now).toBeLessThan(Date.parse(AT('10:00:20.25')));
  });

  it('with follow and until, sends the lines up to until also when its timer wakes late', async () => {
    const clock = { now: Date.parse(AT('10:00:00')) };
    // A pause that takes 30 s whatever it is asked: the follower wakes after until (10:00:10) has passed.
    const late = recordedLogs({
      read: async () => RECORDED,
      device: { now: () => clock.now, containers: async () => null, chute: async (name) => ({ name, record: { state: 'running' }, config: {}, cache: {} }) },
      pause: async () => void (clock.now += 30_000),
    });
    expect(messages(await readEntries(await late.chuteLogs('lab', { ...ALL, follow: true, until: nanoTime(AT('10:00:10')) })))).toEqual([
      'one',
      'two',
      'three',
      'four',
    ]);
  });

  it('with follow, stops looking once the reader cancels', async () => {
    const { logs, pauses } = replayed();
    const reader = (await logs.chuteLogs('lab', { ...ALL, follow: true })).getReader();
    await reader.read();
    await reader.cancel();
    const looked = pauses.length;
    for (let i = 0; i < 5; i++) await turn();
    expect(pauses.length).toBe(looked);
  });

  it('leaves the stream alone once the reader has cancelled, also when the chute stops meanwhile', async () => {
    const { logs, stop } = replayed();
    const reader = (await logs.chuteLogs('lab', { ...ALL, follow: true })).getReader();
    await reader.read();
    stop();
    await reader.cancel();
    // A close or an error of the cancelled stream would throw here, unhandled, and fail the run.
    for (let i = 0; i < 5; i++) await turn();
  });

  it('ends at once, following or not, when the chute does not run', async () => {
    const { logs, stop } = replayed();
    stop();
    expect(messages(await readEntries(await logs.chuteLogs('lab', { ...ALL, follow: true })))).toEqual(['one', 'two', 'three']);
  });

  it("reads a scenario's log file in the order of its times, lines of one time as written", async () => {
    const lines = [entry('10:00:01', 'stdout', 'b'), entry('09:59:59.000000001', 'stderr', 'a'), entry('10:00:01.000', 'stderr', 'c')];
    const read = scenarioLogs({ readFile: async (file) => (file === '/chutes/lab/logs' ? lines.map((line) => `${JSON.stringify(line)}\n\n`).join('') : null) });
    expect(messages([...(await read('lab'))])).toEqual(['a', 'b', 'c']);
    expect(await read('other')).toEqual([]);
  });

  it('moves a time by whole seconds and keeps its fraction as written', () => {
    expect(movedTime('2025-11-21T23:59:30.123456789Z', 90)).toBe('2025-11-22T00:01:00.123456789Z');
    expect(movedTime('2025-11-21T10:00:00Z', -3600)).toBe('2025-11-21T09:00:00Z');
  });
});

describe("the default scenario's chute logs", () => {
  it('are the recorded lines moved to the emulator clock: those up to the start, not those after it', async () => {
    // The recording was made at 2025-11-21T09:59:59.67Z (btime + uptime); the emulator starts 100000 s later.
    const recorded = Date.parse('2025-11-21T09:59:59.67Z');
    const start = recorded + 100_000_000;
    const { device } = await loadScenario('default', undefined, { clock: { now: start, speed: 0 } });
    const lines = await readEntries(await device.chuteLogs('hotspot', ALL));
    expect(lines[0]).toEqual({
      time: '2025-11-20T12:17:57.612093518Z',
      service: 'main',
      stream: 'stdout',
      message: 'portal 2.1 starting with /etc/portal.yaml',
    });
    expect(lines.at(-1)).toMatchObject({
      time: movedTime('2025-11-21T09:55:00.000612489Z', 100_000),
      message: 'sessions: 2 active, 0 ended in the last 5 minutes',
    });
    expect(lines.every((line) => Date.parse(line.time) <= start)).toBe(true);
    expect(lines.map((line) => line.stream)).toContain('stderr');
    expect(messages(await readEntries(await device.chuteLogs('hello-world', { ...ALL, tail: 2 })))).toEqual([
      '192.168.128.104:62155: url:/',
      '192.168.128.104:62155: response:200',
    ]);
  });

  it('are as recorded in a scenario served as recorded', async () => {
    const { device } = await loadScenario('default', undefined, { asRecorded: true, clock: { now: Date.parse('2025-11-21T10:00:30Z'), speed: 0 } });
    const lines = await readEntries(await device.chuteLogs('hello-world', ALL));
    expect(lines.at(-1)).toEqual({ time: '2025-11-21T10:00:12.775588093Z', service: 'main', stream: 'stderr', message: '192.168.128.117:50931: response:200' });
  });

  it('followed, give a line recorded after the start when the emulated clock reaches its time: at speed 0, when it is advanced there', async () => {
    const start = Date.UTC(2026, 0, 1, 12);
    const year = 365 * 86_400_000;
    const { device, clock } = await loadScenario('default', undefined, { clock: { now: start, speed: 0 } });
    // The same replay a year on (its start is the same: now − elapsedMs), to know the lines still to come.
    const later = await loadScenario('default', undefined, { clock: { now: start + year, elapsedMs: year, speed: 0 } });
    const next = (await readEntries(await later.device.chuteLogs('hello-world', ALL))).find((line) => Date.parse(line.time) > start)!;
    const following = readEntries(await device.chuteLogs('hello-world', { ...ALL, follow: true, until: nanoTime(next.time) }));
    let ended = false;
    void following.then(() => (ended = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ended).toBe(false);
    await clock.set({ advanceMs: Date.parse(next.time) - start + 1 });
    // At once: the follower wakes when the clock moves, not a real second (FOLLOW_CHECK_MS) later.
    const lines = await Promise.race([following, new Promise<null>((resolve) => setTimeout(() => resolve(null), FOLLOW_CHECK_MS / 2))]);
    expect(lines?.at(-1)).toEqual(next);
  });
});
